// instanceof hooks on Error and Object that never return.
Object.defineProperty(Error, Symbol.hasInstance, { value() { for (;;) {} } });
Object.defineProperty(Object, Symbol.hasInstance, { value() { for (;;) {} } });
console.log({ a: 1 }, new Error('e'));
return 'printed';
