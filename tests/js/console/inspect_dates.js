console.log(new Date(0));
console.log(new Date(Date.UTC(2024, 1, 29, 13, 45, 30, 123)));
console.log(new Date(NaN));
console.log([new Date(0), { at: new Date(86400000) }]);
console.log(Object.assign(new Date(0), { note: 'extra' }));
