let a = {};
for (let i = 0; i < 1e5; i++) a = { a };
if (typeof structuredClone === 'function') return structuredClone(a) !== a;
for (;;) {}
