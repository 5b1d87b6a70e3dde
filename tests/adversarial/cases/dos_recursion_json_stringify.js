let a = [];
for (let i = 0; i < 1e5; i++) a = [a];
return JSON.stringify(a).length;
