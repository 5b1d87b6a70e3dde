// How console.log shows Buffers, alone and inside other values.
console.log(Buffer.from('hello'));
console.log(Buffer.alloc(0));
console.log(Buffer.alloc(50, 1));
console.log(Buffer.alloc(51, 2));
console.log(Buffer.alloc(52, 3));
console.log(Buffer.alloc(1000));
console.log([Buffer.from('a'), Buffer.from('bc')]);
console.log({ name: 'file.bin', data: Buffer.from([0, 1, 254, 255]), nested: { deeper: {
  buf: Buffer.from('deep') } } });
console.log(new Map([['k', Buffer.from('v')]]), new Set([Buffer.from('s')]));
console.log('%s | %o | %O | %j', Buffer.from('ab'), Buffer.from('ab'), Buffer.from('ab'),
  Buffer.from('ab'));
console.log(`${Buffer.from('template')}`, 'str', Buffer.from('x'), 42);
console.log([Buffer.from('a'.repeat(60))]);
const withProps = Buffer.from('hi');
withProps.label = 'greeting';
withProps[Symbol('tag')] = 1;
console.log(withProps, [withProps]);
const emptyWithProps = Buffer.alloc(0);
emptyWithProps.x = { y: [1, 2] };
console.log(emptyWithProps);
console.log(Buffer.from('abc').subarray(1), new Uint8Array(Buffer.from('abc')),
  Buffer.from('abc').buffer.byteLength >= 3);
const { INSPECT_MAX_BYTES } = require('buffer');
require('buffer').INSPECT_MAX_BYTES = 4;
console.log(Buffer.from('abcdefgh'), Buffer.from('abcde'), Buffer.from('abcd'));
require('buffer').INSPECT_MAX_BYTES = INSPECT_MAX_BYTES;
console.log(Buffer.from('restored'));
console.error(Buffer.from('to stderr'));
console.log(Buffer.prototype.inspect === Buffer.prototype[Symbol.for('nodejs.util.inspect.custom')],
  Buffer.from('x').inspect());
class MyBuffer extends Buffer {}
console.log(Object.create(Buffer.prototype) instanceof Buffer, MyBuffer.name);
