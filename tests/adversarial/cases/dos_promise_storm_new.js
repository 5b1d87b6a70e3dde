const keep = [];
for (;;) keep.push(new Promise(() => {}));
