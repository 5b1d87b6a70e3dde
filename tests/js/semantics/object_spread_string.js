// Spreading a string into an object literal copies its characters, as
// Object.assign and object rest destructuring do (CopyDataProperties works on
// ToObject of the source). The expected output is Node's.
const { ...fromRest } = 'hi';
console.log(fromRest, Object.assign({}, 'hi'));
console.log({ ...'hi' });
console.log({ ...'😀' });
console.log({ ...[7], ...'hi' });
console.log({ ...'hi', ...[7] });
console.log({ ...'ab', z: 1 });
console.log({ ...5 }, { ...true }, { ...10n }, { ...null });
