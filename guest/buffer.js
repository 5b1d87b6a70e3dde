// capsa guest runtime: Node's Buffer (the global, require('buffer') and the 'buffer'
// module) and the string encodings that fs.js shares. Evaluated once per context as a
// global script, after web.js; its completion value { Buffer, module, toBuffer, encode,
// decode, outOfRange } is for node.js and fs.js. UTF-8 and base64 go through web.js's TextEncoder, TextDecoder,
// atob and btoa, captured before any script runs.
//
// Behaviour follows Node.js v20 (methods, messages, error codes, inspect output). Where it
// differs:
// - There is no pool of preallocated memory: a Buffer made here has an ArrayBuffer of its
//   own (buf.byteOffset is 0 unless it is a slice), and allocUnsafe's memory is zeroed.
// - kMaxLength, constants and the ranges in messages are Node's 64-bit values; the
//   sandbox's memory limit comes far below them.
// - Own properties added to a Buffer show in its inspect output only for Buffers of up to
//   4096 bytes: finding them in a larger one would mean listing every index.
// - The Buffer() deprecation warning (DEP0005) goes to stderr once per sandbox, without
//   Node's "(node:PID)" prefix and "(Use `node --trace-deprecation ...`" line.
// - The module has Buffer, isUtf8, isAscii, kMaxLength, kStringMaxLength, atob, btoa,
//   constants and INSPECT_MAX_BYTES; not SlowBuffer, transcode, Blob, File or
//   resolveObjectURL.
// - These functions are compiled with their debug information, as web.js's are: toString
//   shows their source, and stack traces show "buffer.js:LINE" frames where Node shows
//   "node:buffer:LINE".

(function () {
  'use strict';

  // ---------------------------------------------------------------------------
  // Host bridge
  // ---------------------------------------------------------------------------

  const host = globalThis.__capsaBuffer;
  delete globalThis.__capsaBuffer;
  const hostWrite = host.write;
  const { inspect } = host.runtime;
  const { nodeError, describeReceived } = host.web;
  const customInspect = Symbol.for('nodejs.util.inspect.custom');

  // ---------------------------------------------------------------------------
  // Intrinsics, captured before user code can replace them
  // ---------------------------------------------------------------------------

  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const getter = (proto, name) =>
    uncurry(Object.getOwnPropertyDescriptor(proto, name).get);
  const { defineProperty, freeze, getPrototypeOf, setPrototypeOf } = Object;
  const reflectApply = Reflect.apply;
  const reflectOwnKeys = Reflect.ownKeys;
  const propertyIsEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
  const isArray = Array.isArray;
  const mathFloor = Math.floor;
  const mathTrunc = Math.trunc;
  const mathMin = Math.min;
  const mathAbs = Math.abs;
  const numberIsInteger = Number.isInteger;
  const numberIsNaN = Number.isNaN;
  const NumberCtor = Number;
  const BigIntCtor = BigInt;
  const bigIntAsIntN = BigInt.asIntN;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const fromCharCode = String.fromCharCode;
  const stringCharCodeAt = uncurry(String.prototype.charCodeAt);
  const stringSlice = uncurry(String.prototype.slice);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const stringEndsWith = uncurry(String.prototype.endsWith);
  const stringToLowerCase = uncurry(String.prototype.toLowerCase);
  const stringReplace = uncurry(String.prototype.replace);
  const regExpTest = uncurry(RegExp.prototype.test);
  const arrayJoin = uncurry(Array.prototype.join);
  const Uint8ArrayCtor = Uint8Array;
  const Uint16ArrayCtor = Uint16Array;
  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
  const typedArrayTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  const typedArrayBuffer = getter(TypedArrayPrototype, 'buffer');
  const typedArrayByteOffset = getter(TypedArrayPrototype, 'byteOffset');
  const typedArrayByteLength = getter(TypedArrayPrototype, 'byteLength');
  const typedArrayLength = getter(TypedArrayPrototype, 'length');
  const typedArraySet = uncurry(TypedArrayPrototype.set);
  const typedArrayFill = uncurry(TypedArrayPrototype.fill);
  const typedArraySlice = uncurry(TypedArrayPrototype.slice);
  const typedArrayIndexOf = uncurry(TypedArrayPrototype.indexOf);
  const typedArrayLastIndexOf = uncurry(TypedArrayPrototype.lastIndexOf);
  const typedArrayCopyWithin = uncurry(TypedArrayPrototype.copyWithin);
  const arrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength');
  const sharedArrayBufferByteLength = typeof SharedArrayBuffer === 'function' ?
    getter(SharedArrayBuffer.prototype, 'byteLength') : undefined;
  const isView = ArrayBuffer.isView;
  const dataViewBuffer = getter(DataView.prototype, 'buffer');
  const dataViewByteOffset = getter(DataView.prototype, 'byteOffset');
  const dataViewByteLength = getter(DataView.prototype, 'byteLength');
  const utf8Encoder = new TextEncoder();
  const encoderEncode = uncurry(TextEncoder.prototype.encode);
  const encoderEncodeInto = uncurry(TextEncoder.prototype.encodeInto);
  const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const utf8FatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const decoderDecode = uncurry(TextDecoder.prototype.decode);
  const atobFn = atob;
  const btoaFn = btoa;

  const hasBrand = (check, v) => {
    try {
      check(v);
      return true;
    } catch {
      return false;
    }
  };
  const isUint8Array = (v) => typedArrayTag(v) === 'Uint8Array';
  const isTypedArray = (v) => typedArrayTag(v) !== undefined;
  const isAnyArrayBuffer = (v) => hasBrand(arrayBufferByteLength, v) ||
    (sharedArrayBufferByteLength !== undefined && hasBrand(sharedArrayBufferByteLength, v));

  // ---------------------------------------------------------------------------
  // Errors (Node's codes and messages)
  // ---------------------------------------------------------------------------

  const kMaxLength = 2 ** 32;
  const kStringMaxLength = 2 ** 29 - 24;

  // `expected` is already phrased: "of type number", "an instance of Buffer or Uint8Array".
  const invalidArgType = (name, expected, value) => nodeError(TypeErrorCtor,
    'ERR_INVALID_ARG_TYPE',
    `The ${stringEndsWith(name, ' argument') ? name : `"${name}" argument`} ` +
    `must be ${expected}.${describeReceived(value)}`);

  function invalidArgValue(name, value) {
    let shown = inspect(value);
    if (shown.length > 128) shown = `${stringSlice(shown, 0, 128)}...`;
    return nodeError(TypeErrorCtor, 'ERR_INVALID_ARG_VALUE',
      `The argument '${name}' is invalid. Received ${shown}`);
  }

  // "1_000_000": how Node shows large integers in range errors.
  function addNumericalSeparator(val) {
    let res = '';
    let i = val.length;
    const start = val[0] === '-' ? 1 : 0;
    for (; i >= start + 4; i -= 3) res = `_${stringSlice(val, i - 3, i)}${res}`;
    return `${stringSlice(val, 0, i)}${res}`;
  }

  function outOfRange(name, range, input) {
    let received;
    if (numberIsInteger(input) && mathAbs(input) > 2 ** 32) {
      received = addNumericalSeparator(`${input}`);
    } else if (typeof input === 'bigint') {
      received = `${input}`;
      if (input > 2n ** 32n || input < -(2n ** 32n)) received = addNumericalSeparator(received);
      received += 'n';
    } else {
      received = inspect(input);
    }
    return nodeError(RangeErrorCtor, 'ERR_OUT_OF_RANGE',
      `The value of "${name}" is out of range. It must be ${range}. Received ${received}`);
  }

  const unknownEncoding = (encoding) =>
    nodeError(TypeErrorCtor, 'ERR_UNKNOWN_ENCODING', `Unknown encoding: ${encoding}`);
  const bufferOutOfBounds = (name) => nodeError(RangeErrorCtor, 'ERR_BUFFER_OUT_OF_BOUNDS',
    name ? `"${name}" is outside of buffer bounds` :
      'Attempt to access memory outside buffer bounds');
  const notAString = () =>
    nodeError(TypeErrorCtor, 'ERR_INVALID_ARG_TYPE', 'argument must be a string');
  const indexOutOfRange = () =>
    nodeError(RangeErrorCtor, 'ERR_OUT_OF_RANGE', 'Index out of range');
  const expectBuffer = (name, value) =>
    invalidArgType(name, 'an instance of Buffer or Uint8Array', value);

  function validateNumber(value, name, min, max) {
    if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
    if ((min != null && value < min) || (max != null && value > max) ||
        ((min != null || max != null) && numberIsNaN(value))) {
      throw outOfRange(name, `${min != null ? `>= ${min}` : ''}` +
        `${min != null && max != null ? ' && ' : ''}${max != null ? `<= ${max}` : ''}`, value);
    }
  }

  function validateInteger(value, name, min = Number.MIN_SAFE_INTEGER,
    max = Number.MAX_SAFE_INTEGER) {
    if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
    if (!numberIsInteger(value)) throw outOfRange(name, 'an integer', value);
    if (value < min || value > max) throw outOfRange(name, `>= ${min} && <= ${max}`, value);
  }

  const validateOffset = (value, name, min = 0, max = kMaxLength) =>
    validateInteger(value, name, min, max);

  // ---------------------------------------------------------------------------
  // Encodings
  // ---------------------------------------------------------------------------

  const encodingNames = {
    __proto__: null, utf8: 'utf8', 'utf-8': 'utf8', ucs2: 'utf16le', 'ucs-2': 'utf16le',
    utf16le: 'utf16le', 'utf-16le': 'utf16le', latin1: 'latin1', binary: 'latin1',
    base64: 'base64', base64url: 'base64url', hex: 'hex', ascii: 'ascii',
  };

  // The encoding a value names, in any case, or undefined (Node's getEncodingOps).
  function encodingOf(encoding) {
    encoding += '';
    return encodingNames[encoding] || encodingNames[stringToLowerCase(encoding)];
  }

  // As encodingOf, with undefined, null and '' naming UTF-8 (Node's normalizeEncoding).
  function normalizeEncoding(encoding) {
    if (encoding == null || encoding === '') return 'utf8';
    return typeof encoding === 'string' ? encodingOf(encoding) : undefined;
  }

  // A Uint8Array over bytes start..end of a Uint8Array, sharing its memory.
  const view = (bytes, start, end) => new Uint8ArrayCtor(typedArrayBuffer(bytes),
    typedArrayByteOffset(bytes) + start, end - start);

  // String.fromCharCode takes the codes of a slice at a time, as a call's arguments.
  const kChunk = 8192;

  function latin1Slice(bytes, start, end) {
    if (end - start <= kChunk) {
      return reflectApply(fromCharCode, undefined, view(bytes, start, end));
    }
    const parts = [];
    for (let i = start; i < end; i += kChunk) {
      parts[parts.length] = reflectApply(fromCharCode, undefined,
        view(bytes, i, mathMin(i + kChunk, end)));
    }
    return arrayJoin(parts, '');
  }

  const highByteRe = /[\x80-\xff]/;
  const highBytesRe = /[\x80-\xff]/g;
  const clearHighBit = (c) => fromCharCode(stringCharCodeAt(c, 0) & 0x7f);

  function asciiSlice(bytes, start, end) {
    const s = latin1Slice(bytes, start, end);
    return regExpTest(highByteRe, s) ? stringReplace(s, highBytesRe, clearHighBit) : s;
  }

  const hexByte = [];
  for (let i = 0; i < 256; i++) hexByte[i] = (i < 16 ? '0' : '') + i.toString(16);

  // Each byte's two hex digits as one UTF-16 unit: the first digit in the low byte.
  const hexPairs = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    hexPairs[i] = stringCharCodeAt(hexByte[i], 0) | stringCharCodeAt(hexByte[i], 1) << 8;
  }

  function hexSlice(bytes, start, end) {
    const pairs = new Uint16ArrayCtor(end - start);
    for (let i = start; i < end; i++) pairs[i - start] = hexPairs[bytes[i]];
    return decoderDecode(utf8Decoder, new Uint8ArrayCtor(typedArrayBuffer(pairs)));
  }

  // UTF-16LE code units as they are, lone surrogates included; an odd last byte is left out.
  function ucs2Slice(bytes, start, end) {
    const n = (end - start) >>> 1;
    const offset = typedArrayByteOffset(bytes) + start;
    let units;
    if (offset % 2 === 0) {
      units = new Uint16ArrayCtor(typedArrayBuffer(bytes), offset, n);
    } else {
      units = new Uint16ArrayCtor(n);
      typedArraySet(new Uint8ArrayCtor(typedArrayBuffer(units)), view(bytes, start, start + 2 * n));
    }
    const parts = [];
    for (let i = 0; i < n; i += kChunk) {
      parts[parts.length] = reflectApply(fromCharCode, undefined, new Uint16ArrayCtor(
        typedArrayBuffer(units), typedArrayByteOffset(units) + 2 * i, mathMin(kChunk, n - i)));
    }
    return arrayJoin(parts, '');
  }

  const utf8Slice = (bytes, start, end) => decoderDecode(utf8Decoder, view(bytes, start, end));

  const base64Slice = (bytes, start, end) => btoaFn(latin1Slice(bytes, start, end));

  function base64urlSlice(bytes, start, end) {
    const s = base64Slice(bytes, start, end);
    return stringReplace(stringReplace(stringReplace(s, /=+$/, ''), /\+/g, '-'), /\//g, '_');
  }

  // The text of bytes start..end (all of them by default) in a known encoding.
  function decode(bytes, encoding, start = 0, end = typedArrayLength(bytes)) {
    switch (encoding) {
      case 'latin1': return latin1Slice(bytes, start, end);
      case 'ascii': return asciiSlice(bytes, start, end);
      case 'hex': return hexSlice(bytes, start, end);
      case 'base64': return base64Slice(bytes, start, end);
      case 'base64url': return base64urlSlice(bytes, start, end);
      case 'utf16le': return ucs2Slice(bytes, start, end);
    }
    return utf8Slice(bytes, start, end);
  }

  function utf8Bytes(string) {
    const u = encoderEncode(utf8Encoder, string);
    return new FastBuffer(typedArrayBuffer(u), 0, typedArrayLength(u));
  }

  // The low byte of each UTF-16 code unit, as Node writes latin1 and ascii.
  const nonAsciiRe = /[^\x00-\x7f]/;
  function latin1Bytes(string) {
    if (!regExpTest(nonAsciiRe, string)) return utf8Bytes(string);
    const n = string.length;
    const out = new FastBuffer(n);
    for (let i = 0; i < n; i++) out[i] = stringCharCodeAt(string, i);
    return out;
  }

  function ucs2Bytes(string) {
    const n = string.length;
    const units = new Uint16ArrayCtor(n);
    for (let i = 0; i < n; i++) units[i] = stringCharCodeAt(string, i);
    return new FastBuffer(typedArrayBuffer(units), 0, 2 * n);
  }

  // The value of each byte as a hex digit, -1 for the others.
  const hexValues = new Int8Array(256).fill(-1);
  for (let i = 0; i < 22; i++) {
    hexValues[stringCharCodeAt('0123456789abcdefABCDEF', i)] = i < 16 ? i : i - 6;
  }

  // Pairs of hex digits up to the first pair that is not one; an odd last digit is left out.
  // The digits are read from the string's UTF-8, which has the same first bytes up to its
  // first non-ASCII character, and that is not a digit.
  function hexBytes(string) {
    const n = string.length >>> 1;
    const digits = encoderEncode(utf8Encoder, string);
    const out = new FastBuffer(n);
    let i = 0;
    for (; i < n; i++) {
      const hi = hexValues[digits[2 * i]];
      const lo = hexValues[digits[2 * i + 1]];
      if (hi < 0 || lo < 0) break;
      out[i] = hi << 4 | lo;
    }
    return i === n ? out : new FastBuffer(typedArrayBuffer(out), 0, i);
  }

  // Lenient, as Node's: both alphabets in either encoding, other characters skipped, the
  // first '=' ends the data. What is left is valid for atob.
  const notBase64Re = /[^A-Za-z0-9+/]/;
  const notEitherBase64Re = /[^A-Za-z0-9+/\-_]+/g;
  function base64Bytes(string) {
    let s = string;
    const eq = stringIndexOf(s, '=');
    if (eq >= 0) s = stringSlice(s, 0, eq);
    if (regExpTest(notBase64Re, s)) {
      s = stringReplace(stringReplace(stringReplace(s, notEitherBase64Re, ''), /-/g, '+'),
        /_/g, '/');
    }
    if (s.length % 4 === 1) s = stringSlice(s, 0, -1);
    return latin1Bytes(atobFn(s));
  }

  // A string's bytes in a known encoding, as a Buffer.
  function encode(string, encoding) {
    switch (encoding) {
      case 'latin1': case 'ascii': return latin1Bytes(string);
      case 'hex': return hexBytes(string);
      case 'base64': case 'base64url': return base64Bytes(string);
      case 'utf16le': return ucs2Bytes(string);
    }
    return utf8Bytes(string);
  }

  const utf8Length = (string) => (regExpTest(nonAsciiRe, string) ?
    typedArrayLength(encoderEncode(utf8Encoder, string)) : string.length);

  function base64ByteLength(str) {
    let bytes = str.length;
    if (stringCharCodeAt(str, bytes - 1) === 0x3d) bytes--;
    if (bytes > 1 && stringCharCodeAt(str, bytes - 1) === 0x3d) bytes--;
    return (bytes * 3) >>> 2;
  }

  function byteLengthOf(string, encoding) {
    switch (encoding) {
      case 'utf16le': return string.length * 2;
      case 'latin1': case 'ascii': return string.length;
      case 'hex': return string.length >>> 1;
      case 'base64': case 'base64url': return base64ByteLength(string);
    }
    return utf8Length(string);
  }

  // Writes as much of a string as fits in `length` bytes at `offset` (whole characters
  // for UTF-8, whole code units for UTF-16); returns the number of bytes written.
  function writeString(buf, string, offset, length, encoding) {
    if (typeof string !== 'string') throw notAString();
    if (length <= 0) return 0;
    if (encoding === 'utf8') {
      return encoderEncodeInto(utf8Encoder, string, view(buf, offset, offset + length)).written;
    }
    // Encode no more of the string than can be written.
    if (encoding === 'latin1' || encoding === 'ascii') string = stringSlice(string, 0, length);
    else if (encoding === 'utf16le') string = stringSlice(string, 0, length >>> 1);
    else if (encoding === 'hex') string = stringSlice(string, 0, 2 * length);
    const bytes = encode(string, encoding);
    const n = mathMin(length, typedArrayLength(bytes));
    typedArraySet(buf, view(bytes, 0, n), offset);
    return n;
  }

  // ---------------------------------------------------------------------------
  // Buffer and its static methods
  // ---------------------------------------------------------------------------

  // The class of every Buffer; `Buffer` itself is a function that can be called without
  // `new` (deprecated), whose prototype is FastBuffer's, as in Node.
  class FastBuffer extends Uint8ArrayCtor {
    constructor(bufferOrLength, byteOffset, length) {
      super(bufferOrLength, byteOffset, length);
    }
  }

  let deprecationShown = false;

  function Buffer(arg, encodingOrOffset, length) {
    if (!deprecationShown) {
      deprecationShown = true;
      hostWrite(2, '[DEP0005] DeprecationWarning: Buffer() is deprecated due to security and ' +
        'usability issues. Please use the Buffer.alloc(), Buffer.allocUnsafe(), or ' +
        'Buffer.from() methods instead.\n');
    }
    if (typeof arg === 'number') {
      if (typeof encodingOrOffset === 'string') {
        throw invalidArgType('string', 'of type string', arg);
      }
      return alloc(arg);
    }
    return from(arg, encodingOrOffset, length);
  }

  function fromString(string, encoding) {
    let known = 'utf8';
    if (typeof encoding === 'string' && encoding.length !== 0) {
      known = encodingOf(encoding);
      if (known === undefined) throw unknownEncoding(encoding);
    }
    if (string.length === 0) return new FastBuffer();
    return encode(string, known);
  }

  function fromArrayBuffer(obj, byteOffset, length) {
    if (byteOffset === undefined) {
      byteOffset = 0;
    } else {
      byteOffset = +byteOffset;
      if (numberIsNaN(byteOffset)) byteOffset = 0;
    }
    const maxLength = obj.byteLength - byteOffset;
    if (maxLength < 0) throw bufferOutOfBounds('offset');
    if (length === undefined) {
      length = maxLength;
    } else {
      length = +length;
      if (length > 0) {
        if (length > maxLength) throw bufferOutOfBounds('length');
      } else {
        length = 0;
      }
    }
    return new FastBuffer(obj, byteOffset, length);
  }

  function fromArrayLike(obj) {
    if (obj.length <= 0) return new FastBuffer();
    const b = new FastBuffer(obj.length);
    typedArraySet(b, obj, 0);
    return b;
  }

  function fromObject(obj) {
    if (obj.length !== undefined || isAnyArrayBuffer(obj.buffer)) {
      if (typeof obj.length !== 'number') return new FastBuffer();
      return fromArrayLike(obj);
    }
    if (obj.type === 'Buffer' && isArray(obj.data)) return fromArrayLike(obj.data);
    return undefined;
  }

  function from(value, encodingOrOffset, length) {
    if (typeof value === 'string') return fromString(value, encodingOrOffset);
    if (typeof value === 'object' && value !== null) {
      if (isAnyArrayBuffer(value)) return fromArrayBuffer(value, encodingOrOffset, length);
      const valueOf = value.valueOf && value.valueOf();
      if (valueOf != null && valueOf !== value &&
          (typeof valueOf === 'string' || typeof valueOf === 'object')) {
        return from(valueOf, encodingOrOffset, length);
      }
      const b = fromObject(value);
      if (b) return b;
      if (typeof value[Symbol.toPrimitive] === 'function') {
        const primitive = value[Symbol.toPrimitive]('string');
        if (typeof primitive === 'string') return fromString(primitive, encodingOrOffset);
      }
    }
    throw invalidArgType('first argument', 'of type string or an instance of Buffer, ' +
      'ArrayBuffer, or Array or an Array-like Object', value);
  }

  function copyBytesFrom(view, offset, length) {
    if (!isTypedArray(view)) throw invalidArgType('view', 'an instance of TypedArray', view);
    const viewLength = typedArrayLength(view);
    if (viewLength === 0) return new FastBuffer();
    if (offset !== undefined || length !== undefined) {
      if (offset !== undefined) {
        validateInteger(offset, 'offset', 0);
        if (offset >= viewLength) return new FastBuffer();
      } else {
        offset = 0;
      }
      let end;
      if (length !== undefined) {
        validateInteger(length, 'length', 0);
        end = offset + length;
      } else {
        end = viewLength;
      }
      view = typedArraySlice(view, offset, end);
    }
    return fromArrayLike(new Uint8ArrayCtor(typedArrayBuffer(view), typedArrayByteOffset(view),
      typedArrayByteLength(view)));
  }

  const of = (...items) => {
    const b = new FastBuffer(items.length);
    for (let k = 0; k < items.length; k++) b[k] = items[k];
    return b;
  };

  function alloc(size, fill, encoding) {
    validateNumber(size, 'size', 0, kMaxLength);
    if (fill !== undefined && fill !== 0 && size > 0) {
      const buf = new FastBuffer(size);
      return fillBuffer(buf, fill, 0, typedArrayLength(buf), encoding);
    }
    return new FastBuffer(size);
  }

  function allocUnsafe(size) {
    validateNumber(size, 'size', 0, kMaxLength);
    return new FastBuffer(size);
  }

  function allocUnsafeSlow(size) {
    validateNumber(size, 'size', 0, kMaxLength);
    return new FastBuffer(size);
  }

  function isBuffer(b) {
    return b instanceof Buffer;
  }

  // -1, 0 or 1 as bytes a[aStart..aEnd] sort before, with or after b[bStart..bEnd].
  // Slices are compared as Latin-1 strings, which sort as their bytes do.
  function compareBytes(a, aStart, aEnd, b, bStart, bEnd) {
    const la = aEnd - aStart;
    const lb = bEnd - bStart;
    const n = mathMin(la, lb);
    for (let i = 0; i < n; i += kChunk) {
      const m = mathMin(kChunk, n - i);
      const x = latin1Slice(a, aStart + i, aStart + i + m);
      const y = latin1Slice(b, bStart + i, bStart + i + m);
      if (x !== y) return x < y ? -1 : 1;
    }
    return la === lb ? 0 : la < lb ? -1 : 1;
  }

  function compare(buf1, buf2) {
    if (!isUint8Array(buf1)) throw expectBuffer('buf1', buf1);
    if (!isUint8Array(buf2)) throw expectBuffer('buf2', buf2);
    if (buf1 === buf2) return 0;
    return compareBytes(buf1, 0, typedArrayLength(buf1), buf2, 0, typedArrayLength(buf2));
  }

  function isEncoding(encoding) {
    return typeof encoding === 'string' && encoding.length !== 0 &&
      normalizeEncoding(encoding) !== undefined;
  }

  function concat(list, length) {
    if (!isArray(list)) throw invalidArgType('list', 'an instance of Array', list);
    if (list.length === 0) return new FastBuffer();
    if (length === undefined) {
      length = 0;
      for (let i = 0; i < list.length; i++) {
        if (list[i].length) length += list[i].length;
      }
    } else {
      validateOffset(length, 'length');
    }
    const buffer = allocUnsafe(length);
    let pos = 0;
    for (let i = 0; i < list.length; i++) {
      const buf = list[i];
      if (!isUint8Array(buf)) throw expectBuffer(`list[${i}]`, buf);
      pos += copyActual(buf, buffer, pos, 0, typedArrayLength(buf));
    }
    if (pos < length) typedArrayFill(buffer, 0, pos, length);
    return buffer;
  }

  function byteLength(string, encoding) {
    if (typeof string !== 'string') {
      if (isView(string) || isAnyArrayBuffer(string)) return string.byteLength;
      throw invalidArgType('string', 'of type string or an instance of Buffer or ArrayBuffer',
        string);
    }
    if (string.length === 0) return 0;
    if (!encoding || encoding === 'utf8') return utf8Length(string);
    if (encoding === 'ascii') return string.length;
    const known = encodingOf(encoding);
    return known === undefined ? utf8Length(string) : byteLengthOf(string, known);
  }

  // ---------------------------------------------------------------------------
  // Buffer.prototype
  // ---------------------------------------------------------------------------

  // Copies what fits of source[sourceStart..sourceEnd] to target at targetStart.
  function copyActual(source, target, targetStart, sourceStart, sourceEnd) {
    const targetLength = typedArrayLength(target);
    if (sourceEnd - sourceStart > targetLength - targetStart) {
      sourceEnd = sourceStart + targetLength - targetStart;
    }
    let nb = sourceEnd - sourceStart;
    const sourceLen = typedArrayLength(source) - sourceStart;
    if (nb > sourceLen) nb = sourceLen;
    if (nb <= 0) return 0;
    typedArraySet(target, view(source, sourceStart, sourceStart + nb), targetStart);
    return nb;
  }

  function toInteger(n, defaultVal) {
    n = +n;
    if (!numberIsNaN(n) && n >= Number.MIN_SAFE_INTEGER && n <= Number.MAX_SAFE_INTEGER) {
      return n % 1 === 0 ? n : mathFloor(n);
    }
    return defaultVal;
  }

  function copy(target, targetStart, sourceStart, sourceEnd) {
    if (!isUint8Array(this)) throw expectBuffer('source', this);
    if (!isUint8Array(target)) throw expectBuffer('target', target);
    const sourceLength = typedArrayLength(this);
    if (targetStart === undefined) {
      targetStart = 0;
    } else {
      targetStart = numberIsInteger(targetStart) ? targetStart : toInteger(targetStart, 0);
      if (targetStart < 0) throw outOfRange('targetStart', '>= 0', targetStart);
    }
    if (sourceStart === undefined) {
      sourceStart = 0;
    } else {
      sourceStart = numberIsInteger(sourceStart) ? sourceStart : toInteger(sourceStart, 0);
      if (sourceStart < 0 || sourceStart > sourceLength) {
        throw outOfRange('sourceStart', `>= 0 && <= ${sourceLength}`, sourceStart);
      }
    }
    if (sourceEnd === undefined) {
      sourceEnd = sourceLength;
    } else {
      sourceEnd = numberIsInteger(sourceEnd) ? sourceEnd : toInteger(sourceEnd, 0);
      if (sourceEnd < 0) throw outOfRange('sourceEnd', '>= 0', sourceEnd);
    }
    if (targetStart >= typedArrayLength(target) || sourceStart >= sourceEnd) return 0;
    return copyActual(this, target, targetStart, sourceStart, sourceEnd);
  }

  function toString(encoding, start, end) {
    const len = typedArrayLength(this);
    if (arguments.length === 0) return utf8Slice(this, 0, len);
    if (start <= 0) start = 0;
    else if (start >= len) return '';
    else start = mathTrunc(start) || 0;
    if (end === undefined || end > len) end = len;
    else end = mathTrunc(end) || 0;
    if (end <= start) return '';
    if (encoding === undefined) return utf8Slice(this, start, end);
    const known = encodingOf(encoding);
    if (known === undefined) throw unknownEncoding(encoding);
    return decode(this, known, start, end);
  }

  function equals(otherBuffer) {
    if (!isUint8Array(otherBuffer)) throw expectBuffer('otherBuffer', otherBuffer);
    if (this === otherBuffer) return true;
    const len = typedArrayByteLength(this);
    if (len !== typedArrayByteLength(otherBuffer)) return false;
    return len === 0 || compareBytes(this, 0, len, otherBuffer, 0, len) === 0;
  }

  // Own properties other than the indices: all of them with showHidden, else the
  // enumerable ones. Larger Buffers are not searched (see the top of this file).
  function extraKeys(buf, showHidden) {
    if (typedArrayLength(buf) > 4096) return [];
    const keys = reflectOwnKeys(buf);
    const out = [];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === 'string' && `${+key}` === key) continue;
      if (showHidden || propertyIsEnumerable(buf, key)) out[out.length] = key;
    }
    return out;
  }

  // util.inspect's view of a Buffer: <Buffer 68 69>, the first INSPECT_MAX_BYTES bytes.
  function inspectBuffer(recurseTimes, ctx) {
    const len = typedArrayLength(this);
    const shown = mathMin(INSPECT_MAX_BYTES, len);
    const remaining = len - INSPECT_MAX_BYTES;
    const parts = [];
    for (let i = 0; i < shown; i++) parts[i] = hexByte[this[i]];
    let str = arrayJoin(parts, ' ');
    if (remaining > 0) str += ` ... ${remaining} more byte${remaining > 1 ? 's' : ''}`;
    if (ctx) {
      const keys = extraKeys(this, ctx.showHidden);
      if (keys.length > 0) {
        const obj = { __proto__: null };
        for (let i = 0; i < keys.length; i++) obj[keys[i]] = this[keys[i]];
        if (len !== 0) str += ', ';
        // Cuts "[Object: null prototype] {" and " }".
        str += stringSlice(inspect(obj, { ...ctx, breakLength: Infinity, compact: true }),
          27, -2);
      }
    }
    return `<${this.constructor.name} ${str}>`;
  }

  function compareMethod(target, targetStart, targetEnd, sourceStart, sourceEnd) {
    if (!isUint8Array(target)) throw expectBuffer('target', target);
    const sourceLength = typedArrayLength(this);
    const targetLength = typedArrayLength(target);
    if (arguments.length === 1) {
      return compareBytes(this, 0, sourceLength, target, 0, targetLength);
    }
    if (targetStart === undefined) targetStart = 0;
    else validateOffset(targetStart, 'targetStart');
    if (targetEnd === undefined) targetEnd = targetLength;
    else validateOffset(targetEnd, 'targetEnd', 0, targetLength);
    if (sourceStart === undefined) sourceStart = 0;
    else validateOffset(sourceStart, 'sourceStart');
    if (sourceEnd === undefined) sourceEnd = sourceLength;
    else validateOffset(sourceEnd, 'sourceEnd', 0, sourceLength);
    if (sourceStart >= sourceEnd) return targetStart >= targetEnd ? 0 : -1;
    if (targetStart >= targetEnd) return 1;
    return compareBytes(this, sourceStart, sourceEnd, target, targetStart, targetEnd);
  }

  // Where a search starts (Node's IndexOfOffset), or -1 when it cannot match.
  function indexOfOffset(length, offset, needleLength, isForward) {
    if (offset < 0) {
      if (offset + length >= 0) return length + offset;
      if (isForward || needleLength === 0) return 0;
      return -1;
    }
    if (offset + needleLength <= length) return offset;
    if (needleLength === 0) return length;
    if (isForward) return -1;
    return length - 1;
  }

  // The first (forward) or last match of needle in haystack from byte `offset`; with
  // ucs2, matches are whole code units (even positions).
  function searchBytes(haystack, needle, offset, isForward, ucs2) {
    const hlen = typedArrayLength(haystack);
    const nlen = typedArrayLength(needle);
    const start = indexOfOffset(hlen, offset, nlen, isForward);
    if (nlen === 0) return start;
    if (hlen === 0 || start <= -1) return -1;
    if ((isForward && nlen + start > hlen) || nlen > hlen) return -1;
    if (ucs2 && (hlen < 2 || nlen < 2)) return -1;
    const step = ucs2 ? 2 : 1;
    const size = ucs2 ? nlen - nlen % 2 : nlen;
    const last = ucs2 ? (hlen >>> 1) * 2 - size : hlen - size;
    const first = needle[0];
    let pos = ucs2 ? start - start % 2 : start;
    if (pos > last) {
      if (isForward) return -1;
      pos = last;
    }
    while (pos >= 0 && pos <= last) {
      // Jump to the next (or previous) place where the first byte matches.
      const at = isForward ? typedArrayIndexOf(haystack, first, pos) :
        typedArrayLastIndexOf(haystack, first, pos);
      if (at < 0 || at > last) return -1;
      if (at % step === 0) {
        let i = 1;
        while (i < size && haystack[at + i] === needle[i]) i++;
        if (i === size) return at;
      }
      pos = isForward ? at + 1 : at - 1;
    }
    return -1;
  }

  // The bytes of any ArrayBuffer view, as a Uint8Array over the same memory.
  function bytesOfView(v) {
    if (isUint8Array(v)) return v;
    if (isTypedArray(v)) {
      return new Uint8ArrayCtor(typedArrayBuffer(v), typedArrayByteOffset(v),
        typedArrayByteLength(v));
    }
    return new Uint8ArrayCtor(dataViewBuffer(v), dataViewByteOffset(v), dataViewByteLength(v));
  }

  function bidirectionalIndexOf(buffer, val, byteOffset, encoding, dir) {
    if (!isView(buffer)) {
      throw invalidArgType('buffer', 'an instance of Buffer, TypedArray, or DataView', buffer);
    }
    const bytes = bytesOfView(buffer);
    if (typeof byteOffset === 'string') {
      encoding = byteOffset;
      byteOffset = undefined;
    } else if (byteOffset > 0x7fffffff) {
      byteOffset = 0x7fffffff;
    } else if (byteOffset < -0x80000000) {
      byteOffset = -0x80000000;
    }
    byteOffset = +byteOffset;
    if (numberIsNaN(byteOffset)) byteOffset = dir ? 0 : typedArrayLength(bytes);
    byteOffset = mathTrunc(byteOffset);
    if (typeof val === 'number') {
      const len = typedArrayLength(bytes);
      const start = indexOfOffset(len, byteOffset, 1, dir);
      if (start <= -1 || len === 0) return -1;
      const byte = (val >>> 0) & 0xff;
      return dir ? typedArrayIndexOf(bytes, byte, start) :
        typedArrayLastIndexOf(bytes, byte, start);
    }
    const known = encoding === undefined ? 'utf8' : encodingOf(encoding);
    if (typeof val === 'string') {
      if (known === undefined) throw unknownEncoding(encoding);
      return searchBytes(bytes, encode(val, known), byteOffset, dir, known === 'utf16le');
    }
    if (isUint8Array(val)) {
      return searchBytes(bytes, val, byteOffset, dir, known === 'utf16le');
    }
    throw invalidArgType('value',
      'one of type number or string or an instance of Buffer or Uint8Array', val);
  }

  function indexOf(val, byteOffset, encoding) {
    return bidirectionalIndexOf(this, val, byteOffset, encoding, true);
  }

  function lastIndexOf(val, byteOffset, encoding) {
    return bidirectionalIndexOf(this, val, byteOffset, encoding, false);
  }

  function includes(val, byteOffset, encoding) {
    return bidirectionalIndexOf(this, val, byteOffset, encoding, true) !== -1;
  }

  function fillBuffer(buf, value, offset, end, encoding) {
    let known;
    if (typeof value === 'string') {
      if (offset === undefined || typeof offset === 'string') {
        encoding = offset;
        offset = 0;
        end = typedArrayLength(buf);
      } else if (typeof end === 'string') {
        encoding = end;
        end = typedArrayLength(buf);
      }
      known = normalizeEncoding(encoding);
      if (known === undefined) {
        if (typeof encoding !== 'string') {
          throw invalidArgType('encoding', 'of type string', encoding);
        }
        throw unknownEncoding(encoding);
      }
      if (value.length === 0) {
        value = 0;
      } else if (value.length === 1) {
        // One byte: filled as a number.
        const code = stringCharCodeAt(value, 0);
        if (known === 'utf8' && code < 128) value = code;
        else if (known === 'latin1') value = code;
      }
    }
    if (offset === undefined) {
      offset = 0;
      end = typedArrayLength(buf);
    } else {
      validateOffset(offset, 'offset');
      if (end === undefined) end = typedArrayLength(buf);
      else validateOffset(end, 'end', 0, typedArrayLength(buf));
      if (offset >= end) return buf;
    }
    if (typeof value === 'number') {
      typedArrayFill(buf, value, offset, end);
      return buf;
    }
    let pattern;
    if (typeof value === 'string') {
      pattern = encode(value, known);
    } else if (isView(value)) {
      pattern = bytesOfView(value);
    } else {
      typedArrayFill(buf, NumberCtor(value) >>> 0 & 255, offset, end);
      return buf;
    }
    const n = typedArrayLength(pattern);
    if (n === 0) throw invalidArgValue('value', value);
    // The pattern once, then doubling copies of what is already filled.
    typedArraySet(buf, view(pattern, 0, mathMin(n, end - offset)), offset);
    for (let filled = n; filled < end - offset; filled *= 2) {
      typedArrayCopyWithin(buf, offset + filled, offset,
        offset + mathMin(filled, end - offset - filled));
    }
    return buf;
  }

  function fill(value, offset, end, encoding) {
    return fillBuffer(this, value, offset, end, encoding);
  }

  function write(string, offset, length, encoding) {
    const len = typedArrayLength(this);
    if (offset === undefined) return writeString(this, string, 0, len, 'utf8');
    if (length === undefined && typeof offset === 'string') {
      encoding = offset;
      length = len;
      offset = 0;
    } else {
      validateOffset(offset, 'offset', 0, len);
      const remaining = len - offset;
      if (length === undefined) {
        length = remaining;
      } else if (typeof length === 'string') {
        encoding = length;
        length = remaining;
      } else {
        validateOffset(length, 'length', 0, len);
        if (length > remaining) length = remaining;
      }
    }
    if (!encoding || encoding === 'utf8') return writeString(this, string, offset, length, 'utf8');
    const known = encoding === 'ascii' ? 'ascii' : encodingOf(encoding);
    if (known === undefined) throw unknownEncoding(encoding);
    return writeString(this, string, offset, length, known);
  }

  function toJSON() {
    const len = typedArrayLength(this);
    const data = [];
    for (let i = 0; i < len; i++) data[i] = this[i];
    return { type: 'Buffer', data };
  }

  // Node's adjustOffset: a start or end of subarray, clamped to 0..length.
  function adjustOffset(offset, length) {
    offset = mathTrunc(offset);
    if (offset === 0 || numberIsNaN(offset)) return 0;
    if (offset < 0) {
      offset += length;
      return offset > 0 ? offset : 0;
    }
    return offset < length ? offset : length;
  }

  function subarray(start, end) {
    const srcLength = typedArrayLength(this);
    start = adjustOffset(start, srcLength);
    end = end !== undefined ? adjustOffset(end, srcLength) : srcLength;
    const newLength = end > start ? end - start : 0;
    return new FastBuffer(typedArrayBuffer(this), typedArrayByteOffset(this) + start, newLength);
  }

  function slice(start, end) {
    return reflectApply(subarray, this, [start, end]);
  }

  const invalidBufferSize = (bits) => nodeError(RangeErrorCtor, 'ERR_INVALID_BUFFER_SIZE',
    `Buffer size must be a multiple of ${bits}`);

  // Reverses each group of `size` bytes in place.
  function swapGroups(buf, size, bits) {
    const len = typedArrayLength(buf);
    if (len % size !== 0) throw invalidBufferSize(bits);
    for (let i = 0; i < len; i += size) {
      for (let a = i, b = i + size - 1; a < b; a++, b--) {
        const t = buf[a];
        buf[a] = buf[b];
        buf[b] = t;
      }
    }
    return buf;
  }

  function swap16() {
    return swapGroups(this, 2, '16-bits');
  }

  function swap32() {
    return swapGroups(this, 4, '32-bits');
  }

  function swap64() {
    return swapGroups(this, 8, '64-bits');
  }

  // ---------------------------------------------------------------------------
  // Reading and writing numbers
  // ---------------------------------------------------------------------------

  function boundsError(value, length, type) {
    if (mathFloor(value) !== value) {
      validateNumber(value, type);
      throw outOfRange(type || 'offset', 'an integer', value);
    }
    if (length < 0) throw bufferOutOfBounds();
    throw outOfRange(type || 'offset', `>= ${type ? 1 : 0} and <= ${length}`, value);
  }

  // Throws Node's error unless `n` bytes at `offset` are inside the buffer.
  function checkOffset(buf, offset, n) {
    if (typeof offset !== 'number') throw invalidArgType('offset', 'of type number', offset);
    const len = typedArrayLength(buf);
    if (!(offset >= 0 && offset + n <= len && mathFloor(offset) === offset)) {
      boundsError(offset, len - n);
    }
  }

  // The unsigned (or two's complement) integer of n <= 6 bytes.
  function readInt(buf, offset, n, littleEndian, signed) {
    let value = 0;
    for (let i = 0; i < n; i++) {
      value = value * 256 + buf[littleEndian ? offset + n - 1 - i : offset + i];
    }
    if (signed && value >= 2 ** (8 * n - 1)) value -= 2 ** (8 * n);
    return value;
  }

  // The range message of Node's checkInt for n bytes.
  function intRange(min, max, n) {
    const suffix = typeof min === 'bigint' ? 'n' : '';
    if (n > 4) {
      const bits = n * 8;
      if (min === 0 || min === 0n) return `>= 0${suffix} and < 2${suffix} ** ${bits}${suffix}`;
      return `>= -(2${suffix} ** ${bits - 1}${suffix}) and < 2${suffix} ** ${bits - 1}${suffix}`;
    }
    return `>= ${min}${suffix} and <= ${max}${suffix}`;
  }

  // Writes n <= 6 bytes of value as Node does: the low 32 bits go through ToUint8 and
  // >>> 8, the bits above through Math.floor(value / 2 ** 32).
  function writeInt(buf, value, offset, n, min, max, littleEndian) {
    value = +value;
    if (n === 1) {
      if (typeof offset !== 'number') throw invalidArgType('offset', 'of type number', offset);
      if (value > max || value < min) throw outOfRange('value', intRange(min, max, n), value);
    } else if (value > max || value < min) {
      throw outOfRange('value', intRange(min, max, n), value);
    }
    checkOffset(buf, offset, n);
    return writeWords(buf, offset, n, value, n > 4 ? mathFloor(value * 2 ** -32) : 0, littleEndian);
  }

  // Stores n <= 8 bytes at offset: the low four from lo, the rest from hi, each byte
  // through ToUint8 and >>> 8. Returns the offset after them.
  function writeWords(buf, offset, n, lo, hi, littleEndian) {
    for (let i = 0; i < n; i++) {
      const pos = littleEndian ? offset + i : offset + n - 1 - i;
      if (i < 4) {
        buf[pos] = lo;
        lo = lo >>> 8;
      } else {
        buf[pos] = hi;
        hi = hi >>> 8;
      }
    }
    return offset + n;
  }

  const scratch = new Float64Array(1);
  const scratchBytes = new Uint8ArrayCtor(scratch.buffer);
  const scratch32 = new Float32Array(scratch.buffer, 0, 1);

  // The bytes of a float or double in the scratch, as the buffer holds them.
  function loadScratch(buf, offset, n, littleEndian) {
    for (let i = 0; i < n; i++) {
      scratchBytes[i] = buf[littleEndian ? offset + i : offset + n - 1 - i];
    }
  }

  function storeScratch(buf, offset, n, littleEndian) {
    for (let i = 0; i < n; i++) {
      buf[littleEndian ? offset + i : offset + n - 1 - i] = scratchBytes[i];
    }
    return offset + n;
  }

  const methods = { __proto__: null };

  // Gives a method made here the name Node's has.
  const named = (name, fn) => defineProperty(fn, 'name', { value: name });

  for (const [n, bits] of [[1, '8'], [2, '16'], [4, '32']]) {
    for (const signed of [false, true]) {
      const max = signed ? 2 ** (8 * n - 1) - 1 : 2 ** (8 * n) - 1;
      const min = signed ? -(2 ** (8 * n - 1)) : 0;
      const type = signed ? 'Int' : 'UInt';
      for (const endian of n === 1 ? [''] : ['LE', 'BE']) {
        const le = endian !== 'BE';
        methods[`read${type}${bits}${endian}`] = named(`read${type}${bits}${endian}`,
          function (offset = 0) {
            checkOffset(this, offset, n);
            return readInt(this, offset, n, le, signed);
          });
        methods[`write${type}${bits}${endian}`] = named(`write${type}${bits}${endian}`,
          function (value, offset = 0) {
            return writeInt(this, value, offset, n, min, max, le);
          });
      }
    }
  }

  for (const signed of [false, true]) {
    const type = signed ? 'Int' : 'UInt';
    for (const endian of ['LE', 'BE']) {
      const le = endian === 'LE';
      const read = methods[`read${type}8`];
      methods[`read${type}${endian}`] = named(`read${type}${endian}`,
        function (offset, byteLength) {
          if (offset === undefined) throw invalidArgType('offset', 'of type number', offset);
          if (byteLength === 1) return reflectApply(read, this, [offset]);
          if (byteLength >= 2 && byteLength <= 6 && numberIsInteger(byteLength)) {
            checkOffset(this, offset, byteLength);
            return readInt(this, offset, byteLength, le, signed);
          }
          return boundsError(byteLength, 6, 'byteLength');
        });
      methods[`write${type}${endian}`] = named(`write${type}${endian}`,
        function (value, offset, byteLength) {
          if (byteLength >= 1 && byteLength <= 6 && numberIsInteger(byteLength)) {
            const max = signed ? 2 ** (8 * byteLength - 1) - 1 : 2 ** (8 * byteLength) - 1;
            const min = signed ? -(2 ** (8 * byteLength - 1)) : 0;
            return writeInt(this, value, offset, byteLength, min, max, le);
          }
          return boundsError(byteLength, 6, 'byteLength');
        });
    }
  }

  for (const [n, name] of [[4, 'Float'], [8, 'Double']]) {
    for (const [endian, le, way] of [['LE', true, 'Forwards'], ['BE', false, 'Backwards']]) {
      const cell = n === 4 ? scratch32 : scratch;
      methods[`read${name}${endian}`] = named(`read${name}${way}`, function (offset = 0) {
        checkOffset(this, offset, n);
        loadScratch(this, offset, n, le);
        return cell[0];
      });
      methods[`write${name}${endian}`] = named(`write${name}${way}`, function (val, offset = 0) {
        val = +val;
        checkOffset(this, offset, n);
        cell[0] = val;
        return storeScratch(this, offset, n, le);
      });
    }
  }

  for (const signed of [false, true]) {
    const type = signed ? 'Int' : 'UInt';
    const min = signed ? -(2n ** 63n) : 0n;
    const max = signed ? 2n ** 63n - 1n : 2n ** 64n - 1n;
    for (const endian of ['LE', 'BE']) {
      const le = endian === 'LE';
      methods[`readBig${type}64${endian}`] = named(`readBig${type}64${endian}`,
        function (offset = 0) {
          checkOffset(this, offset, 8);
          const hi = readInt(this, le ? offset + 4 : offset, 4, le, false);
          const lo = readInt(this, le ? offset : offset + 4, 4, le, false);
          const value = (BigIntCtor(hi) << 32n) + BigIntCtor(lo);
          return signed ? bigIntAsIntN(64, value) : value;
        });
      methods[`writeBig${type}64${endian}`] = named(`writeBig${type}64${endian}`,
        function (value, offset = 0) {
          if (value > max || value < min) throw outOfRange('value', intRange(min, max, 8), value);
          checkOffset(this, offset, 8);
          return writeWords(this, offset, 8, NumberCtor(value & 0xffffffffn),
                            NumberCtor(value >> 32n & 0xffffffffn), le);
        });
    }
  }

  // The per-encoding methods: buf.hexSlice(start, end), buf.utf8Write(string, offset, length).
  for (const [prefix, encoding] of [['ascii', 'ascii'], ['base64', 'base64'],
    ['base64url', 'base64url'], ['latin1', 'latin1'], ['hex', 'hex'], ['ucs2', 'utf16le'],
    ['utf8', 'utf8']]) {
    methods[`${prefix}Slice`] = named(`${prefix}Slice`, function (start, end) {
      const len = typedArrayLength(this);
      start = start === undefined ? 0 : mathTrunc(+start) || 0;
      end = end === undefined ? len : mathTrunc(+end) || 0;
      if (start < 0 || end < 0) throw indexOutOfRange();
      if (end < start) end = start;
      if (end > len) throw indexOutOfRange();
      return decode(this, encoding, start, end);
    });
    methods[`${prefix}Write`] = named(`${prefix}Write`, function (string, offset, length) {
      if (typeof string !== 'string') throw notAString();
      const len = typedArrayLength(this);
      offset = offset === undefined ? 0 : mathTrunc(+offset) || 0;
      if (offset < 0) throw indexOutOfRange();
      if (offset > len) throw bufferOutOfBounds('offset');
      length = length === undefined ? len - offset : mathTrunc(+length) || 0;
      if (length < 0) throw indexOutOfRange();
      return writeString(this, string, offset, mathMin(len - offset, length), encoding);
    });
  }

  let INSPECT_MAX_BYTES = 50;

  // ---------------------------------------------------------------------------
  // Assembly, in the order Node defines its properties
  // ---------------------------------------------------------------------------

  const proto = FastBuffer.prototype;
  defineProperty(proto, 'constructor', {
    value: Buffer, writable: true, enumerable: false, configurable: true,
  });
  Buffer.prototype = proto;
  setPrototypeOf(Buffer, Uint8ArrayCtor);

  for (const name of [
    'readBigUInt64LE', 'readBigUInt64BE', 'readBigUint64LE', 'readBigUint64BE',
    'readBigInt64LE', 'readBigInt64BE', 'writeBigUInt64LE', 'writeBigUInt64BE',
    'writeBigUint64LE', 'writeBigUint64BE', 'writeBigInt64LE', 'writeBigInt64BE',
    'readUIntLE', 'readUInt32LE', 'readUInt16LE', 'readUInt8', 'readUIntBE', 'readUInt32BE',
    'readUInt16BE', 'readUintLE', 'readUint32LE', 'readUint16LE', 'readUint8', 'readUintBE',
    'readUint32BE', 'readUint16BE', 'readIntLE', 'readInt32LE', 'readInt16LE', 'readInt8',
    'readIntBE', 'readInt32BE', 'readInt16BE', 'writeUIntLE', 'writeUInt32LE',
    'writeUInt16LE', 'writeUInt8', 'writeUIntBE', 'writeUInt32BE', 'writeUInt16BE',
    'writeUintLE', 'writeUint32LE', 'writeUint16LE', 'writeUint8', 'writeUintBE',
    'writeUint32BE', 'writeUint16BE', 'writeIntLE', 'writeInt32LE', 'writeInt16LE',
    'writeInt8', 'writeIntBE', 'writeInt32BE', 'writeInt16BE', 'readFloatLE', 'readFloatBE',
    'readDoubleLE', 'readDoubleBE', 'writeFloatLE', 'writeFloatBE', 'writeDoubleLE',
    'writeDoubleBE', 'asciiSlice', 'base64Slice', 'base64urlSlice', 'latin1Slice',
    'hexSlice', 'ucs2Slice', 'utf8Slice', 'asciiWrite', 'base64Write', 'base64urlWrite',
    'latin1Write', 'hexWrite', 'ucs2Write', 'utf8Write',
  ]) {
    // readUint8 and the like are the readUInt8 functions under another name.
    proto[name] = methods[name] || methods[stringReplace(name, 'int', 'Int')];
  }
  defineProperty(proto, 'parent', {
    enumerable: true,
    configurable: true,
    get: named('get', function () {
      return this instanceof Buffer ? typedArrayBuffer(this) : undefined;
    }),
  });
  defineProperty(proto, 'offset', {
    enumerable: true,
    configurable: true,
    get: named('get', function () {
      return this instanceof Buffer ? typedArrayByteOffset(this) : undefined;
    }),
  });
  proto.copy = copy;
  proto.toString = toString;
  proto.equals = equals;
  proto.inspect = named('inspect', inspectBuffer);
  proto.compare = named('compare', compareMethod);
  proto.indexOf = indexOf;
  proto.lastIndexOf = lastIndexOf;
  proto.includes = includes;
  proto.fill = fill;
  proto.write = write;
  proto.toJSON = toJSON;
  proto.subarray = subarray;
  proto.slice = slice;
  proto.swap16 = swap16;
  proto.swap32 = swap32;
  proto.swap64 = swap64;
  proto.toLocaleString = toString;
  proto[customInspect] = proto.inspect;

  Buffer.poolSize = 8 * 1024;
  Buffer.from = from;
  Buffer.copyBytesFrom = copyBytesFrom;
  Buffer.of = of;
  Buffer.alloc = alloc;
  Buffer.allocUnsafe = allocUnsafe;
  Buffer.allocUnsafeSlow = allocUnsafeSlow;
  Buffer.isBuffer = isBuffer;
  Buffer.compare = compare;
  Buffer.isEncoding = isEncoding;
  Buffer.concat = concat;
  Buffer.byteLength = byteLength;
  defineProperty(Buffer, Symbol.species, {
    get: named('get [Symbol.species]', () => FastBuffer), enumerable: false, configurable: true,
  });
  Buffer[Symbol('kIsEncodingSymbol')] = isEncoding;

  // ---------------------------------------------------------------------------
  // The 'buffer' module
  // ---------------------------------------------------------------------------

  function isUtf8(input) {
    if (!isTypedArray(input) && !isAnyArrayBuffer(input)) {
      throw invalidArgType('input', 'an instance of ArrayBuffer, Buffer, or TypedArray', input);
    }
    try {
      decoderDecode(utf8FatalDecoder, input);
      return true;
    } catch {
      return false;
    }
  }

  function isAscii(input) {
    if (!isTypedArray(input) && !isAnyArrayBuffer(input)) {
      throw invalidArgType('input', 'an instance of ArrayBuffer, Buffer, or TypedArray', input);
    }
    const bytes = isTypedArray(input) ? bytesOfView(input) : new Uint8ArrayCtor(input);
    const len = typedArrayLength(bytes);
    for (let i = 0; i < len; i++) if (bytes[i] > 0x7f) return false;
    return true;
  }

  const constants = { MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: kStringMaxLength };
  const bufferModule = {
    Buffer, isUtf8, isAscii, kMaxLength, kStringMaxLength, btoa: btoaFn, atob: atobFn,
  };
  defineProperty(bufferModule, 'constants', {
    value: constants, writable: false, enumerable: true, configurable: false,
  });
  defineProperty(bufferModule, 'INSPECT_MAX_BYTES', {
    get: named('get', () => INSPECT_MAX_BYTES),
    set: named('set', (val) => {
      validateNumber(val, 'INSPECT_MAX_BYTES', 0);
      INSPECT_MAX_BYTES = val;
    }),
    enumerable: true,
    configurable: true,
  });

  defineProperty(globalThis, 'Buffer', {
    value: Buffer, writable: true, enumerable: false, configurable: true,
  });

  // A Buffer over the memory of an ArrayBuffer or a Uint8Array.
  function toBuffer(value) {
    if (isAnyArrayBuffer(value)) return new FastBuffer(value);
    return new FastBuffer(typedArrayBuffer(value), typedArrayByteOffset(value),
      typedArrayLength(value));
  }

  // The completion value of this script, for fs.js (through guest/main.c).
  return freeze({ Buffer, module: bufferModule, toBuffer, encode, decode, outOfRange });
})();
