// node:buffer, the module: Buffer is the global one; its constants and helpers.
const buffer = require('node:buffer');
console.log(buffer.Buffer === Buffer, require('buffer') === buffer, typeof buffer.kMaxLength,
  buffer.constants.MAX_LENGTH === buffer.kMaxLength, typeof buffer.constants.MAX_STRING_LENGTH);
console.log(buffer.INSPECT_MAX_BYTES);
console.log(buffer.atob('aGk='), buffer.btoa('hi'), buffer.isUtf8(Buffer.from('é')),
  buffer.isUtf8(Buffer.from([0xff])), buffer.isAscii(Buffer.from('abc')));
