// An error's stack starts with "Name: message" as V8 writes it, taken when the stack is
// first read; Error.stackTraceLimit sets how many frames it records.
// Frames differ between engines, so only the first lines and their count are printed.
// Expected: Node's output.
const first = (err) => JSON.stringify(err.stack.split('\n')[0]);
console.log(first(new Error('boom')));
console.log(first(new TypeError('bad type')));
console.log(first(new RangeError()));
console.log(first(new Error('')));
console.log(first(new Error('with cause', { cause: 1 })));
console.log(JSON.stringify(new Error('two\nlines').stack.split('\n').slice(0, 2)));

class ValidationError extends Error {
  constructor(field) {
    super(`invalid ${field}`);
    this.name = 'ValidationError';
  }
}
console.log(first(new ValidationError('email')));
class PlainSubclass extends Error {}
console.log(first(new PlainSubclass('inherits the name')));
class NamedByPrototype extends Error {}
NamedByPrototype.prototype.name = 'NamedByPrototype';
console.log(first(new NamedByPrototype('from the prototype')));
class NamedByGetter extends Error {
  get name() {
    return 'NamedByGetter';
  }
}
console.log(first(new NamedByGetter('from a getter')));

// The header is taken when the stack is first read, not changed afterwards.
const late = new Error('before');
late.message = 'after';
late.name = 'Renamed';
console.log(first(late));
const read = new Error('read once');
read.stack;
read.message = 'changed';
console.log(first(read));

// Engine errors, and errors thrown by built-ins.
try {
  null.property;
} catch (e) {
  console.log(first(e));
}
try {
  JSON.parse('{oops}');
} catch (e) {
  console.log(first(e));
}
try {
  undefinedVariable;
} catch (e) {
  console.log(first(e));
}

// A stack a script assigns is kept as it is.
const assigned = new Error('x');
assigned.stack = 'custom stack';
console.log(JSON.stringify(assigned.stack));
const descriptor = Object.getOwnPropertyDescriptor(new Error('d'), 'stack');
console.log(typeof descriptor.value, descriptor.writable, descriptor.enumerable,
  descriptor.configurable);

// Error.captureStackTrace gives an object the same header.
const target = { message: 'captured' };
Error.captureStackTrace(target);
console.log(first(target));
const plain = {};
Error.captureStackTrace(plain);
console.log(first(plain));

// Error.stackTraceLimit: the number of frames recorded, none when it is not a number.
function deep(n) {
  if (n === 0) {
    return new Error('deep');
  }
  return deep(n - 1);
}
console.log(Error.stackTraceLimit, deep(20).stack.split('\n').length);
Error.stackTraceLimit = 3;
console.log(deep(20).stack.split('\n').length);
Error.stackTraceLimit = 0;
console.log(JSON.stringify(deep(20).stack));
Error.stackTraceLimit = 'none';
console.log(deep(20).stack);
Error.stackTraceLimit = 10;
try {
  (function recurse() {
    recurse();
  })();
} catch (e) {
  console.log(first(e), e.stack.split('\n').length);
}

// Printed errors show the stack once, with the header first.
Error.stackTraceLimit = 0;
console.log(new ValidationError('name'));
console.log({ error: new TypeError('nested') });
console.log([new NamedByGetter('in an array')]);
console.log(String(new ValidationError('string')));
