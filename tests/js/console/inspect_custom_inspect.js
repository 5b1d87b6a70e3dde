const custom = Symbol.for('nodejs.util.inspect.custom');
class Secret { [custom]() { return 'Secret<redacted>'; } }
console.log(new Secret(), [new Secret()], { s: new Secret() });
const replaced = { [custom]() { return { replacedWith: [1, 2] }; } };
console.log(replaced);
const depthAware = { [custom](depth) { return `depth=${depth}`; } };
console.log({ a: { b: depthAware } });
const multiline = { [custom]() { return 'line1\nline2'; } };
console.log({ nested: multiline });
console.log('%s', new Secret());
