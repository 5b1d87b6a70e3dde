let p = {};
for (let i = 0; i < 1e5; i++) p = new Proxy(p, {});
return p.x;
