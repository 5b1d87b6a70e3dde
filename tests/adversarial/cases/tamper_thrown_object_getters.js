// A thrown non-error with hostile getters: reported without calling them.
throw {
  get name() { throw new Error('name getter'); },
  get message() { for (;;) {} },
  toString() { throw new Error('toString'); },
  [Symbol.toPrimitive]() { throw new Error('toPrimitive'); },
};
