// An array-like that claims 2**32 - 1 elements.
return Reflect.apply(Math.max, null, { length: 2 ** 32 - 1 });
