function named() {}
const arrow = () => {};
console.log(named, arrow, function () {}, () => {});
console.log(async function af() {}, async () => {}, function* gen() {}, async function* ag() {});
console.log(named.bind(null), Math.max, { method() {} });
console.log(Object.assign(function withProps() {}, { a: 1, b: 'two' }));
console.log([named, arrow]);
