const s = new Set();
for (let i = 0; ; i++) s.add('k' + i);
