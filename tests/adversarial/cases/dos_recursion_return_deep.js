// The run's value is serialised by the runtime: a value too deep for it.
let a = [];
for (let i = 0; i < 1e5; i++) a = [a];
return a;
