const fs = [];
for (let i = 0; ; i++) fs.push(() => i);
