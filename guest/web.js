// capsa guest runtime: the web and Node.js globals scripts expect beyond the language:
// timers and queueMicrotask, structuredClone, TextEncoder/TextDecoder, atob/btoa, URL and
// URLSearchParams, crypto.getRandomValues/randomUUID, performance, DOMException, global.
// Evaluated once per context as a global script, after runtime.js; its completion value
// { tick, cancel, runTicks } drives the event loop of guest/loop.c (and gives nextTick to
// process). Nothing here reaches the host
// but through the natives of __capsaWeb (clocks, random bytes, UTF-8 and base64
// conversion, the job queue, stderr for warnings).
//
// - These functions are compiled with their debug information, as Node's own JavaScript
//   is: toString shows their source and stack traces show "web.js:LINE" frames where
//   Node shows "node:internal/..." ones.
// - The built-in methods they rely on most (Map and WeakMap methods, Reflect.apply, the
//   typed array and ArrayBuffer accessors) are captured before any script runs, so a
//   script that replaces them does not change how these globals behave.
//
// Behaviour follows Node.js v20 (messages, error codes, order of callbacks, inspect
// output). Where it differs (guest/web.md has the list for users):
// - Timer handles are Timeout/Immediate objects with ref/unref/hasRef/refresh/close and
//   [Symbol.toPrimitive] (a number that clearTimeout also accepts), without Node's
//   internal fields (_idleTimeout, ...).
// - performance.now() counts from the sandbox's start (its creation or last reset), not
//   the process's; performance has now(), timeOrigin and toJSON() only.
// - TextDecoder knows UTF-8, UTF-16LE and windows-1252 (with their labels), not the
//   other ICU encodings; Node 20 decodes the windows-1252 labels as Latin-1.
// - Host names go through a reduced UTS #46: NFKC, lower case, full stops, punycode;
//   rare mappings and the bidi and joiner checks are not applied.
// - structuredClone copies objects of built-in kinds it does not know (iterators,
//   generators) as plain objects where Node throws, and cannot tell a Proxy from its
//   target.
// - Node's errors carry their code in the first line of the stack ("TypeError
//   [ERR_INVALID_URL]: ..."); here it is only in err.code.

(function () {
  'use strict';

  // ---------------------------------------------------------------------------
  // Host bridge
  // ---------------------------------------------------------------------------

  const host = globalThis.__capsaWeb;
  delete globalThis.__capsaWeb;
  const {
    write: hostWrite, promiseState: hostPromiseState, now: hostNow,
    timeOrigin: hostTimeOrigin, getRandomValues: hostGetRandomValues,
    enqueueJob: hostEnqueueJob, ticksQueued: hostTicksQueued, detach: hostDetach, utf8Encode: hostUtf8Encode,
    utf8EncodeInto: hostUtf8EncodeInto, utf8Decode: hostUtf8Decode,
    base64Encode: hostBase64Encode, base64Decode: hostBase64Decode,
  } = host;
  const { inspect } = host.runtime;
  const customInspect = Symbol.for('nodejs.util.inspect.custom');

  // ---------------------------------------------------------------------------
  // Intrinsics, captured before user code can replace them
  // ---------------------------------------------------------------------------

  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const getter = (proto, name) =>
    uncurry(Object.getOwnPropertyDescriptor(proto, name).get);
  const {
    defineProperty, getOwnPropertyDescriptor, getPrototypeOf,
    setPrototypeOf, keys: objectKeys, freeze,
  } = Object;
  const reflectApply = Reflect.apply;
  const reflectOwnKeys = Reflect.ownKeys;
  const isArray = Array.isArray;
  const fromCharCode = String.fromCharCode;
  const fromCodePoint = String.fromCodePoint;
  const mathFloor = Math.floor;
  const hasOwn = uncurry(Object.prototype.hasOwnProperty);
  const objectToString = uncurry(Object.prototype.toString);
  const functionToString = uncurry(Function.prototype.toString);
  const symbolToString = uncurry(Symbol.prototype.toString);
  const weakMapGet = uncurry(WeakMap.prototype.get);
  const weakMapSet = uncurry(WeakMap.prototype.set);
  const weakMapHas = uncurry(WeakMap.prototype.has);
  const weakSetHas = uncurry(WeakSet.prototype.has);
  const mapGet = uncurry(Map.prototype.get);
  const mapSet = uncurry(Map.prototype.set);
  const mapHas = uncurry(Map.prototype.has);
  const mapDelete = uncurry(Map.prototype.delete);
  const mapClear = uncurry(Map.prototype.clear);
  const mapEntries = uncurry(Map.prototype.entries);
  const mapSize = getter(Map.prototype, 'size');
  const setAdd = uncurry(Set.prototype.add);
  const setValues = uncurry(Set.prototype.values);
  const setSize = getter(Set.prototype, 'size');
  const dateGetTime = uncurry(Date.prototype.getTime);
  const regExpSource = getter(RegExp.prototype, 'source');
  const regExpFlags = getter(RegExp.prototype, 'flags');
  const regExpTest = uncurry(RegExp.prototype.test);
  const numberValueOf = uncurry(Number.prototype.valueOf);
  const stringValueOf = uncurry(String.prototype.valueOf);
  const booleanValueOf = uncurry(Boolean.prototype.valueOf);
  const bigintValueOf = uncurry(BigInt.prototype.valueOf);
  const symbolValueOf = uncurry(Symbol.prototype.valueOf);
  const arrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength');
  const arrayBufferSlice = uncurry(ArrayBuffer.prototype.slice);
  const SharedArrayBufferConstructor =
    typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : undefined;
  const sharedArrayBufferByteLength = SharedArrayBufferConstructor !== undefined ?
    getter(SharedArrayBufferConstructor.prototype, 'byteLength') : undefined;
  const isView = ArrayBuffer.isView;
  const dataViewBuffer = getter(DataView.prototype, 'buffer');
  const dataViewByteOffset = getter(DataView.prototype, 'byteOffset');
  const dataViewByteLength = getter(DataView.prototype, 'byteLength');
  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
  const typedArrayTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  const typedArrayBuffer = getter(TypedArrayPrototype, 'buffer');
  const typedArrayByteOffset = getter(TypedArrayPrototype, 'byteOffset');
  const typedArrayByteLength = getter(TypedArrayPrototype, 'byteLength');
  const typedArrayLength = getter(TypedArrayPrototype, 'length');
  const typedArraySubarray = uncurry(TypedArrayPrototype.subarray);
  const typedArraySlice = uncurry(TypedArrayPrototype.slice);
  const typedArraySet = uncurry(TypedArrayPrototype.set);
  const stringNormalize = uncurry(String.prototype.normalize);
  const stringToLowerCase = uncurry(String.prototype.toLowerCase);
  const IteratorPrototype = getPrototypeOf(getPrototypeOf([][Symbol.iterator]()));
  const typedArrayConstructors = {
    __proto__: null,
    Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array,
    Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
  };

  // Whether calling `check(v)` succeeds: the brand checks of built-in methods.
  const hasBrand = (check, v) => {
    try {
      check(v);
      return true;
    } catch {
      return false;
    }
  };
  const isUint8Array = (v) => typedArrayTag(v) === 'Uint8Array';
  const isArrayBuffer = (v) => hasBrand(arrayBufferByteLength, v);
  const isSharedArrayBuffer = (v) =>
    sharedArrayBufferByteLength !== undefined && hasBrand(sharedArrayBufferByteLength, v);
  const isDataView = (v) => hasBrand(dataViewBuffer, v);

  // Defines methods and accessors the way Web IDL does: enumerable, configurable.
  function defineInterface(proto, tag) {
    for (const key of reflectOwnKeys(proto)) {
      if (key === 'constructor') continue;
      const desc = getOwnPropertyDescriptor(proto, key);
      desc.enumerable = typeof key === 'string';
      defineProperty(proto, key, desc);
    }
    if (tag !== undefined) {
      defineProperty(proto, Symbol.toStringTag, { value: tag, configurable: true });
    }
  }

  // ---------------------------------------------------------------------------
  // Node-style errors
  // ---------------------------------------------------------------------------

  function nodeError(Base, code, message) {
    const err = new Base(message);
    err.code = code;
    return err;
  }

  // What Node's messages say about a value they did not expect.
  function describeReceived(value) {
    if (value == null) return ` Received ${value}`;
    if (typeof value === 'function' && value.name) return ` Received function ${value.name}`;
    if (typeof value === 'object') {
      if (value.constructor && value.constructor.name) {
        return ` Received an instance of ${value.constructor.name}`;
      }
      return ` Received ${inspect(value, { depth: -1 })}`;
    }
    const shown = typeof value === 'string' && value.length > 28 ?
      `${value.slice(0, 25)}...` : value;
    return ` Received type ${typeof value} (${inspect(shown)})`;
  }

  const invalidArgType = (name, expected, value) => nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
    `The "${name}" argument must be ${expected}.${describeReceived(value)}`);
  const missingArgs = (...names) => nodeError(TypeError, 'ERR_MISSING_ARGS',
    names.length === 1 ? `The "${names[0]}" argument must be specified` :
      `The "${names[0]}" and "${names[1]}" arguments must be specified`);
  const invalidThis = (type) =>
    nodeError(TypeError, 'ERR_INVALID_THIS', `Value of "this" must be of type ${type}`);

  function validateFunction(value, name) {
    if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value);
  }

  // Lone surrogates become U+FFFD, as Web IDL's USVString conversion does.
  const loneSurrogateRe = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  const surrogateRe = /[\uD800-\uDFFF]/;
  function toUSVString(value) {
    const s = `${value}`;
    return regExpTest(surrogateRe, s) ? s.replace(loneSurrogateRe, '\uFFFD') : s;
  }

  // Each byte in lower-case hex ("0f") and percent-encoded ("%0F").
  const hexByte = [];
  const pctByte = [];
  for (let i = 0; i < 256; i++) {
    hexByte[i] = (i < 16 ? '0' : '') + i.toString(16);
    pctByte[i] = `%${(i < 16 ? '0' : '') + i.toString(16).toUpperCase()}`;
  }

  // ---------------------------------------------------------------------------
  // DOMException
  // ---------------------------------------------------------------------------

  const domExceptionCodes = [
    ['IndexSizeError', 'INDEX_SIZE_ERR', 1], ['DOMStringSizeError', 'DOMSTRING_SIZE_ERR', 2],
    ['HierarchyRequestError', 'HIERARCHY_REQUEST_ERR', 3],
    ['WrongDocumentError', 'WRONG_DOCUMENT_ERR', 4],
    ['InvalidCharacterError', 'INVALID_CHARACTER_ERR', 5],
    ['NoDataAllowedError', 'NO_DATA_ALLOWED_ERR', 6],
    ['NoModificationAllowedError', 'NO_MODIFICATION_ALLOWED_ERR', 7],
    ['NotFoundError', 'NOT_FOUND_ERR', 8], ['NotSupportedError', 'NOT_SUPPORTED_ERR', 9],
    ['InUseAttributeError', 'INUSE_ATTRIBUTE_ERR', 10],
    ['InvalidStateError', 'INVALID_STATE_ERR', 11], ['SyntaxError', 'SYNTAX_ERR', 12],
    ['InvalidModificationError', 'INVALID_MODIFICATION_ERR', 13],
    ['NamespaceError', 'NAMESPACE_ERR', 14], ['InvalidAccessError', 'INVALID_ACCESS_ERR', 15],
    ['ValidationError', 'VALIDATION_ERR', 16], ['TypeMismatchError', 'TYPE_MISMATCH_ERR', 17],
    ['SecurityError', 'SECURITY_ERR', 18], ['NetworkError', 'NETWORK_ERR', 19],
    ['AbortError', 'ABORT_ERR', 20], ['URLMismatchError', 'URL_MISMATCH_ERR', 21],
    ['QuotaExceededError', 'QUOTA_EXCEEDED_ERR', 22], ['TimeoutError', 'TIMEOUT_ERR', 23],
    ['InvalidNodeTypeError', 'INVALID_NODE_TYPE_ERR', 24],
    ['DataCloneError', 'DATA_CLONE_ERR', 25],
  ];
  const domExceptionCodeOf = new Map();
  for (const [name, , code] of domExceptionCodes) mapSet(domExceptionCodeOf, name, code);
  const domExceptionState = new WeakMap();

  function domExceptionSlot(self) {
    const state = weakMapGet(domExceptionState, self);
    if (state === undefined) {
      throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of DOMException');
    }
    return state;
  }

  // An Error whose name, message and code are accessors of the prototype, as in Node.
  class DOMException extends Error {
    constructor(message = '', options = 'Error') {
      super();
      delete this.message;
      let name;
      if (options !== null && typeof options === 'object') {
        name = `${options.name}`;
        if ('cause' in options) {
          defineProperty(this, 'cause', {
            value: options.cause, writable: true, enumerable: false, configurable: true,
          });
        }
      } else {
        name = `${options}`;
      }
      weakMapSet(domExceptionState, this, { message: `${message}`, name });
    }

    get name() {
      return domExceptionSlot(this).name;
    }

    get message() {
      return domExceptionSlot(this).message;
    }

    get code() {
      const code = mapGet(domExceptionCodeOf, domExceptionSlot(this).name);
      return code === undefined ? 0 : code;
    }
  }
  defineInterface(DOMException.prototype, 'DOMException');
  for (const [, constant, code] of domExceptionCodes) {
    const desc = { value: code, writable: false, enumerable: true, configurable: false };
    defineProperty(DOMException, constant, desc);
    defineProperty(DOMException.prototype, constant, desc);
  }

  const domException = (message, name) => new DOMException(message, name);

  // ---------------------------------------------------------------------------
  // Timers, immediates and microtasks
  // ---------------------------------------------------------------------------
  //
  // Timers wait in a binary heap ordered by due time (milliseconds of performance.now())
  // and then by creation, so timers with equal delays fire in the order they were set.
  // guest/loop.c calls tick() after each drain of the microtask queue; tick() runs at most
  // one callback per call, in the phases of Node's event loop: the timers due when the
  // phase began, then the immediates queued before the phase began.

  const kTimeoutMax = 2 ** 31 - 1;
  const timerHeap = [];
  const timerRecords = new WeakMap(); // Timeout -> record
  const timersById = new Map(); // id -> record, for the scheduled timers
  let nextTimerId = 1;
  let timerSeq = 0;
  let refedTimers = 0; // scheduled timers that keep the loop alive

  const timerBefore = (a, b) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

  function heapSwap(i, j) {
    const a = timerHeap[i];
    const b = timerHeap[j];
    timerHeap[i] = b;
    b.index = i;
    timerHeap[j] = a;
    a.index = j;
  }

  function heapUp(i) {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!timerBefore(timerHeap[i], timerHeap[parent])) break;
      heapSwap(i, parent);
      i = parent;
    }
  }

  function heapDown(i) {
    const n = timerHeap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && timerBefore(timerHeap[l], timerHeap[m])) m = l;
      if (r < n && timerBefore(timerHeap[r], timerHeap[m])) m = r;
      if (m === i) break;
      heapSwap(i, m);
      i = m;
    }
  }

  function schedule(rec, start) {
    rec.due = start + rec.delay;
    rec.seq = ++timerSeq;
    rec.index = timerHeap.length;
    timerHeap[timerHeap.length] = rec;
    heapUp(rec.index);
    mapSet(timersById, rec.id, rec);
    if (rec.refed) refedTimers++;
  }

  function unschedule(rec) {
    const i = rec.index;
    if (i < 0) return;
    const last = timerHeap.length - 1;
    if (i !== last) {
      heapSwap(i, last);
    }
    timerHeap.length = last;
    if (i !== last) {
      heapDown(i);
      heapUp(i);
    }
    rec.index = -1;
    if (rec.refed) refedTimers--;
  }

  function timeoutRecord(self) {
    const rec = weakMapGet(timerRecords, self);
    if (rec === undefined) throw invalidThis('Timeout');
    return rec;
  }

  // What setTimeout and setInterval return.
  class Timeout {
    ref() {
      const rec = timeoutRecord(this);
      if (!rec.refed) {
        rec.refed = true;
        if (rec.index >= 0) refedTimers++;
      }
      return this;
    }

    unref() {
      const rec = timeoutRecord(this);
      if (rec.refed) {
        rec.refed = false;
        if (rec.index >= 0) refedTimers--;
      }
      return this;
    }

    hasRef() {
      return timeoutRecord(this).refed;
    }

    // Restarts the delay from now; brings back a timeout that has fired.
    refresh() {
      const rec = timeoutRecord(this);
      if (!rec.cleared) {
        unschedule(rec);
        schedule(rec, hostNow());
      }
      return this;
    }

    close() {
      clearTimeout(this);
      return this;
    }

    [Symbol.toPrimitive]() {
      return timeoutRecord(this).id;
    }
  }

  function emitWarning(type, message) {
    hostWrite(2, `${type}: ${message}\n`);
  }

  function createTimer(callback, after, args, repeat) {
    validateFunction(callback, 'callback');
    after *= 1;
    if (!(after >= 1 && after <= kTimeoutMax)) {
      if (after > kTimeoutMax) {
        emitWarning('TimeoutOverflowWarning', `${after} does not fit into a 32-bit signed ` +
          'integer.\nTimeout duration was set to 1.');
      }
      after = 1;
    }
    const timeout = new Timeout();
    const rec = {
      owner: timeout, id: nextTimerId++, callback, args, delay: after, repeat,
      due: 0, seq: 0, index: -1, refed: true, cleared: false,
    };
    weakMapSet(timerRecords, timeout, rec);
    schedule(rec, hostNow());
    return timeout;
  }

  const restArgs = (args, from) => {
    const out = [];
    for (let i = from; i < args.length; i++) out[out.length] = args[i];
    return out;
  };

  // The extra parameters make `length` 5, as in Node.
  function setTimeout(callback, after, arg1, arg2, arg3) {
    return createTimer(callback, after, restArgs(arguments, 2), false);
  }

  function setInterval(callback, repeat, arg1, arg2, arg3) {
    return createTimer(callback, repeat, restArgs(arguments, 2), true);
  }

  function clearTimeout(timer) {
    let rec;
    if (timer !== null && typeof timer === 'object') {
      rec = weakMapGet(timerRecords, timer);
    } else if (typeof timer === 'number' || typeof timer === 'string') {
      rec = mapGet(timersById, +timer);
    }
    if (rec === undefined) return;
    rec.cleared = true;
    unschedule(rec);
    mapDelete(timersById, rec.id);
  }

  function clearInterval(timer) {
    clearTimeout(timer);
  }

  // Runs the first timer of the heap.
  function runTimer(rec) {
    unschedule(rec);
    if (!rec.repeat) mapDelete(timersById, rec.id);
    const start = hostNow();
    reflectApply(rec.callback, rec.owner, rec.args);
    if (rec.repeat && !rec.cleared && rec.index < 0) schedule(rec, start);
  }

  let immediateQueue = [];
  let immediateHead = 0;
  let pendingImmediates = 0;
  let refedImmediates = 0;
  const immediateRecords = new WeakMap(); // Immediate -> record

  function immediateRecord(self) {
    const rec = weakMapGet(immediateRecords, self);
    if (rec === undefined) throw invalidThis('Immediate');
    return rec;
  }

  // What setImmediate returns.
  class Immediate {
    ref() {
      const rec = immediateRecord(this);
      if (!rec.refed) {
        rec.refed = true;
        if (rec.pending) refedImmediates++;
      }
      return this;
    }

    unref() {
      const rec = immediateRecord(this);
      if (rec.refed) {
        rec.refed = false;
        if (rec.pending) refedImmediates--;
      }
      return this;
    }

    hasRef() {
      return immediateRecord(this).refed;
    }
  }

  function setImmediate(callback, arg1, arg2, arg3) {
    validateFunction(callback, 'callback');
    const immediate = new Immediate();
    const rec = {
      owner: immediate, callback, args: restArgs(arguments, 1), refed: true, pending: true,
    };
    weakMapSet(immediateRecords, immediate, rec);
    immediateQueue[immediateQueue.length] = rec;
    pendingImmediates++;
    refedImmediates++;
    return immediate;
  }

  function dropImmediate(rec) {
    rec.pending = false;
    pendingImmediates--;
    if (rec.refed) refedImmediates--;
  }

  function clearImmediate(immediate) {
    if (immediate === null || typeof immediate !== 'object') return;
    const rec = weakMapGet(immediateRecords, immediate);
    if (rec !== undefined && rec.pending) dropImmediate(rec);
  }

  function queueMicrotask(callback) {
    validateFunction(callback, 'callback');
    hostEnqueueJob(callback);
  }

  // process.nextTick's queue: guest/loop.c runs it (runTicks) before the microtasks, and
  // again when the microtasks queued more, as Node does.
  let tickQueue = [];
  let tickHead = 0;

  function nextTick(callback, ...args) {
    validateFunction(callback, 'callback');
    tickQueue[tickQueue.length] = { callback, args };
    hostTicksQueued();
  }

  // Runs the queued callbacks, those they queue too. What one throws propagates (it ends
  // the run); the rest stay queued.
  function runTicks() {
    while (tickHead < tickQueue.length) {
      const t = tickQueue[tickHead];
      tickQueue[tickHead++] = undefined;
      reflectApply(t.callback, undefined, t.args);
    }
    tickQueue = [];
    tickHead = 0;
  }

  const kLoopStart = 0;
  const kLoopTimers = 1;
  const kLoopImmediates = 2;
  let loopPhase = kLoopStart;
  let phaseNow = 0;
  let immediateEnd = 0;

  // One step of the event loop, for guest/loop.c: runs the next callback that is due and
  // returns 0 (call again once the microtasks have run), or returns 0 with nothing run
  // when a callback is ready, the time (performance.now()) to sleep until when the next
  // timer is not due yet, or -1 when no timer or immediate keeps the loop alive. What the
  // callback throws propagates: it ends the run.
  function tick() {
    if (loopPhase === kLoopStart) {
      phaseNow = hostNow();
      loopPhase = kLoopTimers;
    }
    if (loopPhase === kLoopTimers) {
      const top = timerHeap[0];
      if (top !== undefined && top.due <= phaseNow) {
        runTimer(top);
        return 0;
      }
      loopPhase = kLoopImmediates;
      immediateEnd = immediateQueue.length;
    }
    if (loopPhase === kLoopImmediates) {
      while (immediateHead < immediateEnd) {
        const rec = immediateQueue[immediateHead];
        immediateQueue[immediateHead++] = undefined;
        if (rec.pending) {
          dropImmediate(rec);
          reflectApply(rec.callback, rec.owner, rec.args);
          return 0;
        }
      }
      const rest = [];
      for (let i = immediateHead; i < immediateQueue.length; i++) {
        rest[rest.length] = immediateQueue[i];
      }
      immediateQueue = rest;
      immediateHead = 0;
      loopPhase = kLoopStart;
    }
    if (refedTimers === 0 && refedImmediates === 0) return -1;
    if (pendingImmediates > 0) return 0;
    const due = timerHeap[0].due;
    return due <= hostNow() ? 0 : due;
  }

  // Drops every timer and immediate: the run is over.
  function cancel() {
    for (let i = 0; i < timerHeap.length; i++) {
      timerHeap[i].index = -1;
      timerHeap[i].cleared = true;
    }
    timerHeap.length = 0;
    mapClear(timersById);
    refedTimers = 0;
    for (let i = immediateHead; i < immediateQueue.length; i++) {
      if (immediateQueue[i] !== undefined) immediateQueue[i].pending = false;
    }
    immediateQueue = [];
    immediateHead = immediateEnd = 0;
    pendingImmediates = refedImmediates = 0;
    loopPhase = kLoopStart;
    tickQueue = [];
    tickHead = 0;
  }

  // ---------------------------------------------------------------------------
  // performance
  // ---------------------------------------------------------------------------

  // performance.now() counts milliseconds, with sub-millisecond resolution on a monotonic
  // clock, from the sandbox's start; timeOrigin is the Unix time of that start.
  class Performance {
    now() {
      return hostNow();
    }

    get timeOrigin() {
      return hostTimeOrigin();
    }

    toJSON() {
      return { timeOrigin: hostTimeOrigin() };
    }

    [customInspect](depth, options) {
      return `Performance ${inspect({ timeOrigin: hostTimeOrigin() }, options)}`;
    }
  }
  defineInterface(Performance.prototype, 'Performance');
  const performance = new Performance();

  // ---------------------------------------------------------------------------
  // crypto
  // ---------------------------------------------------------------------------

  const integerArrays = {
    __proto__: null,
    Int8Array: true, Uint8Array: true, Uint8ClampedArray: true, Int16Array: true,
    Uint16Array: true, Int32Array: true, Uint32Array: true, BigInt64Array: true,
    BigUint64Array: true,
  };
  const kMaxRandomBytes = 65536;

  class Crypto {
    getRandomValues(array) {
      if (arguments.length === 0) {
        throw nodeError(TypeError, 'ERR_MISSING_ARGS', "Failed to execute 'getRandomValues' " +
          "on 'Crypto': 1 argument required, but only 0 present.");
      }
      const tag = typedArrayTag(array);
      if (tag === undefined || integerArrays[tag] !== true) {
        throw domException('The data argument must be an integer-type TypedArray',
          'TypeMismatchError');
      }
      if (typedArrayByteLength(array) > kMaxRandomBytes) {
        throw domException('The requested length exceeds 65,536 bytes', 'QuotaExceededError');
      }
      return hostGetRandomValues(array);
    }

    // A version 4 UUID from 122 random bits.
    randomUUID() {
      const b = hostGetRandomValues(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      let s = '';
      for (let i = 0; i < 16; i++) {
        if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
        s += hexByte[b[i]];
      }
      return s;
    }
  }
  defineInterface(Crypto.prototype, 'Crypto');
  const crypto = new Crypto();

  // ---------------------------------------------------------------------------
  // atob, btoa
  // ---------------------------------------------------------------------------

  const invalidCharacter = () => domException('Invalid character', 'InvalidCharacterError');

  // Forgiving-base64 decode (guest/web.c), with Node's checks and messages.
  function atob(input) {
    if (arguments.length === 0) throw missingArgs('input');
    const result = hostBase64Decode(`${input}`);
    if (result === -1) throw invalidCharacter();
    if (result === -2) {
      throw domException('The string to be decoded is not correctly encoded.',
        'InvalidCharacterError');
    }
    return result;
  }

  function btoa(input) {
    if (arguments.length === 0) throw missingArgs('input');
    const result = hostBase64Encode(`${input}`);
    if (result === null) throw invalidCharacter();
    return result;
  }

  // ---------------------------------------------------------------------------
  // TextEncoder, TextDecoder
  // ---------------------------------------------------------------------------

  class TextEncoder {
    get encoding() {
      return 'utf-8';
    }

    encode(input = '') {
      return new Uint8Array(hostUtf8Encode(`${input}`));
    }

    encodeInto(src, dest) {
      src = `${src}`;
      if (!isUint8Array(dest)) throw invalidArgType('dest', 'an instance of Uint8Array', dest);
      const [read, written] = hostUtf8EncodeInto(src, dest);
      return { read, written };
    }

    [customInspect](depth, options) {
      if (typeof depth === 'number' && depth < 0) return this;
      const obj = { __proto__: { constructor: TextEncoder } };
      obj.encoding = 'utf-8';
      return inspect(obj, options);
    }
  }
  defineInterface(TextEncoder.prototype, 'TextEncoder');

  const encodingLabels = { __proto__: null };
  for (const [name, labels] of [
    ['utf-8', 'unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8'],
    ['utf-16le', 'csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le'],
    ['windows-1252', 'ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 ' +
      'iso-ir-100 iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii ' +
      'windows-1252 x-cp1252'],
  ]) {
    for (const label of labels.split(' ')) encodingLabels[label] = name;
  }

  // The characters of windows-1252's bytes 0x80 to 0x9f; the other bytes are Latin-1.
  const windows1252High = '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030' +
    '\u0160\u2039\u0152\u008D\u017D\u008F\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014' +
    '\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

  const decoderState = new WeakMap();

  function decoderSlot(self) {
    const state = weakMapGet(decoderState, self);
    if (state === undefined) throw invalidThis('TextDecoder');
    return state;
  }

  // The number of bytes at the end of `bytes` that begin a UTF-8 sequence still valid so
  // far but not complete: a stream keeps them for the next chunk.
  function utf8IncompleteTail(bytes) {
    const n = typedArrayLength(bytes);
    for (let k = 1; k <= 3 && k <= n; k++) {
      const b = bytes[n - k];
      if ((b & 0xc0) === 0x80) continue;
      const needed = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 :
        b >= 0xf0 && b <= 0xf4 ? 3 : 0;
      if (needed < k) return 0;
      if (k >= 2) {
        const second = bytes[n - k + 1];
        const lower = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
        const upper = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
        if (second < lower || second > upper) return 0;
      }
      return k;
    }
    return 0;
  }

  // Joins character codes into a string, in slices that fit in a call's arguments.
  function fromCharCodes(codes) {
    let s = '';
    for (let i = 0; i < codes.length; i += 8192) {
      s += reflectApply(fromCharCode, undefined, codes.slice(i, i + 8192));
    }
    return s;
  }

  // UTF-16LE: null when `fatal` and the input has a lone surrogate or an odd byte.
  function decodeUtf16le(bytes, fatal, flush) {
    const n = typedArrayLength(bytes);
    const codes = [];
    for (let i = 0; i + 1 < n; i += 2) codes[codes.length] = bytes[i] | (bytes[i + 1] << 8);
    const last = codes.length > 0 ? codes[codes.length - 1] : 0;
    // A lone high surrogate and an odd byte after it are one error.
    const endsInHigh = last >= 0xd800 && last <= 0xdbff;
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < codes.length &&
          codes[i + 1] >= 0xdc00 && codes[i + 1] <= 0xdfff) {
        i++;
      } else if (c >= 0xd800 && c <= 0xdfff) {
        if (fatal) return null;
        codes[i] = 0xfffd;
      }
    }
    if (n % 2 === 1 && flush && !endsInHigh) {
      if (fatal) return null;
      codes[codes.length] = 0xfffd;
    }
    return fromCharCodes(codes);
  }

  // How many bytes a UTF-16LE stream keeps for its next chunk: an odd byte, and a high
  // surrogate that its low half may follow.
  function utf16IncompleteTail(bytes) {
    const n = typedArrayLength(bytes);
    let k = n % 2;
    if (n - k >= 2) {
      const last = bytes[n - k - 2] | (bytes[n - k - 1] << 8);
      if (last >= 0xd800 && last <= 0xdbff) k += 2;
    }
    return k;
  }

  function decodeWindows1252(bytes) {
    const n = typedArrayLength(bytes);
    const codes = [];
    for (let i = 0; i < n; i++) {
      const b = bytes[i];
      codes[i] = b >= 0x80 && b <= 0x9f ? windows1252High.charCodeAt(b - 0x80) : b;
    }
    return fromCharCodes(codes);
  }

  // The bytes of a BufferSource as a Uint8Array over the same memory.
  function bufferSourceBytes(input) {
    if (isArrayBuffer(input) || isSharedArrayBuffer(input)) return new Uint8Array(input);
    if (typedArrayTag(input) !== undefined) {
      return new Uint8Array(typedArrayBuffer(input), typedArrayByteOffset(input),
        typedArrayByteLength(input));
    }
    if (isDataView(input)) {
      return new Uint8Array(dataViewBuffer(input), dataViewByteOffset(input),
        dataViewByteLength(input));
    }
    return undefined;
  }

  class TextDecoder {
    constructor(encoding = 'utf-8', options = {}) {
      encoding = `${encoding}`;
      if (options !== null && typeof options !== 'object' && typeof options !== 'function') {
        throw invalidArgType('options', 'of type object', options);
      }
      const label = stringToLowerCase(encoding.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, ''));
      const name = encodingLabels[label];
      if (name === undefined) {
        throw nodeError(RangeError, 'ERR_ENCODING_NOT_SUPPORTED',
          `The "${encoding}" encoding is not supported`);
      }
      weakMapSet(decoderState, this, {
        encoding: name,
        fatal: Boolean(options != null && options.fatal),
        ignoreBOM: Boolean(options != null && options.ignoreBOM),
        pending: null, // bytes of an incomplete sequence kept by a stream
        bomChecked: false,
      });
    }

    decode(input = undefined, options = {}) {
      const state = decoderSlot(this);
      let bytes;
      if (input === undefined) {
        bytes = new Uint8Array(0);
      } else {
        bytes = bufferSourceBytes(input);
        if (bytes === undefined) {
          throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "list" argument must be an ' +
            'instance of SharedArrayBuffer, ArrayBuffer or ArrayBufferView.');
        }
      }
      if (options !== null && typeof options !== 'object' && typeof options !== 'function') {
        throw invalidArgType('options', 'of type object', options);
      }
      const stream = Boolean(options != null && options.stream);
      if (state.pending !== null) {
        const joined = new Uint8Array(typedArrayLength(state.pending) + typedArrayLength(bytes));
        typedArraySet(joined, state.pending, 0);
        typedArraySet(joined, bytes, typedArrayLength(state.pending));
        bytes = joined;
        state.pending = null;
      }
      if (stream && state.encoding !== 'windows-1252') {
        const tail = state.encoding === 'utf-8' ? utf8IncompleteTail(bytes) :
          utf16IncompleteTail(bytes);
        if (tail > 0) {
          const n = typedArrayLength(bytes);
          state.pending = typedArraySlice(bytes, n - tail);
          bytes = typedArraySubarray(bytes, 0, n - tail);
        }
      }
      let text;
      if (state.encoding === 'utf-8') {
        text = hostUtf8Decode(bytes, state.fatal);
      } else if (state.encoding === 'utf-16le') {
        text = decodeUtf16le(bytes, state.fatal, !stream);
      } else {
        text = decodeWindows1252(bytes);
      }
      if (text === null) {
        state.pending = null;
        state.bomChecked = false;
        throw nodeError(TypeError, 'ERR_ENCODING_INVALID_ENCODED_DATA',
          `The encoded data was not valid for encoding ${state.encoding}`);
      }
      if (!state.bomChecked && text.length > 0) {
        state.bomChecked = true;
        if (!state.ignoreBOM && state.encoding !== 'windows-1252' &&
            text.charCodeAt(0) === 0xfeff) {
          text = text.slice(1);
        }
      }
      if (!stream) {
        state.bomChecked = false;
      }
      return text;
    }

    get encoding() {
      return decoderSlot(this).encoding;
    }

    get fatal() {
      return decoderSlot(this).fatal;
    }

    get ignoreBOM() {
      return decoderSlot(this).ignoreBOM;
    }

    [customInspect](depth, options) {
      if (typeof depth === 'number' && depth < 0) return this;
      const state = decoderSlot(this);
      const obj = { __proto__: { constructor: TextDecoder } };
      obj.encoding = state.encoding;
      obj.fatal = state.fatal;
      obj.ignoreBOM = state.ignoreBOM;
      return `TextDecoder ${inspect(obj)}`;
    }
  }
  defineInterface(TextDecoder.prototype, 'TextDecoder');

  // ---------------------------------------------------------------------------
  // URL parsing (the WHATWG URL Standard's basic URL parser)
  // ---------------------------------------------------------------------------
  //
  // A URL record is { scheme, username, password, host, port, path, query, fragment }:
  // host is null or the serialized host; port null or a number; path an array of
  // segments, or a string for an opaque path ("mailto:x"); query and fragment null or
  // a string (already percent-encoded).

  const FAILURE = { failure: true };
  const EOF = -1;
  const specialPorts = {
    __proto__: null, ftp: 21, file: null, http: 80, https: 443, ws: 80, wss: 443,
  };
  const isSpecial = (scheme) => scheme in specialPorts;
  const defaultPort = (scheme) => specialPorts[scheme];

  // Percent-encode sets, as tables of the ASCII code points they contain; every code
  // point above U+007E is in every set.
  function encodeSet(base, chars) {
    const set = base === undefined ? new Uint8Array(128) : typedArraySlice(base);
    if (base === undefined) {
      for (let c = 0; c < 0x20; c++) set[c] = 1;
      set[0x7f] = 1;
    }
    for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1;
    return set;
  }
  const c0ControlSet = encodeSet(undefined, '');
  const fragmentSet = encodeSet(c0ControlSet, ' "<>`');
  const querySet = encodeSet(c0ControlSet, ' "#<>');
  const specialQuerySet = encodeSet(querySet, "'");
  const pathSet = encodeSet(querySet, '?`{}');
  const userinfoSet = encodeSet(pathSet, '/:;=@[\\]^|');

  // The code point c, percent-encoded (as UTF-8) if the set contains it.
  function encodeCodePoint(c, set) {
    if (c < 0x80) return set[c] ? pctByte[c] : fromCharCode(c);
    if (c < 0x800) return pctByte[0xc0 | (c >> 6)] + pctByte[0x80 | (c & 63)];
    if (c < 0x10000) {
      return pctByte[0xe0 | (c >> 12)] + pctByte[0x80 | ((c >> 6) & 63)] +
        pctByte[0x80 | (c & 63)];
    }
    return pctByte[0xf0 | (c >> 18)] + pctByte[0x80 | ((c >> 12) & 63)] +
      pctByte[0x80 | ((c >> 6) & 63)] + pctByte[0x80 | (c & 63)];
  }

  function encodeString(s, set) {
    let out = '';
    for (const ch of s) out += encodeCodePoint(ch.codePointAt(0), set);
    return out;
  }

  // The code points of a string without lone surrogates.
  function codePoints(s) {
    const out = [];
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        }
      }
      out[out.length] = c;
    }
    return out;
  }

  const isAsciiDigit = (c) => c >= 0x30 && c <= 0x39;
  const isAsciiAlpha = (c) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  const isAsciiHexDigit = (c) => isAsciiDigit(c) || (c >= 0x41 && c <= 0x46) ||
    (c >= 0x61 && c <= 0x66);
  const hexValue = (c) => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);

  // Percent-decodes the UTF-8 of s into bytes.
  function percentDecode(s) {
    const bytes = new Uint8Array(hostUtf8Encode(s));
    const n = typedArrayLength(bytes);
    const out = new Uint8Array(n);
    let o = 0;
    for (let i = 0; i < n; i++) {
      const b = bytes[i];
      if (b === 0x25 && i + 2 < n && isAsciiHexDigit(bytes[i + 1]) &&
          isAsciiHexDigit(bytes[i + 2])) {
        out[o++] = hexValue(bytes[i + 1]) * 16 + hexValue(bytes[i + 2]);
        i += 2;
      } else {
        out[o++] = b;
      }
    }
    return typedArraySubarray(out, 0, o);
  }

  const isWindowsDriveLetter = (s) => s.length === 2 && isAsciiAlpha(s.charCodeAt(0)) &&
    (s[1] === ':' || s[1] === '|');
  const isNormalizedWindowsDriveLetter = (s) => isWindowsDriveLetter(s) && s[1] === ':';

  // Whether the code points from `pointer` start with a Windows drive letter.
  function startsWithWindowsDriveLetter(cps, pointer) {
    if (cps.length - pointer < 2) return false;
    if (!isAsciiAlpha(cps[pointer]) || (cps[pointer + 1] !== 0x3a && cps[pointer + 1] !== 0x7c)) {
      return false;
    }
    if (cps.length - pointer === 2) return true;
    const c = cps[pointer + 2];
    return c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23;
  }

  const isSingleDot = (s) => s === '.' || stringToLowerCase(s) === '%2e';
  function isDoubleDot(s) {
    if (s.length !== 2 && s.length !== 4 && s.length !== 6) return false;
    const l = stringToLowerCase(s);
    return l === '..' || l === '.%2e' || l === '%2e.' || l === '%2e%2e';
  }

  function shortenPath(url) {
    const path = url.path;
    if (url.scheme === 'file' && path.length === 1 && isNormalizedWindowsDriveLetter(path[0])) {
      return;
    }
    path.length = path.length > 0 ? path.length - 1 : 0;
  }

  const includesCredentials = (url) => url.username !== '' || url.password !== '';
  const hasOpaquePath = (url) => typeof url.path === 'string';

  // --- hosts -----------------------------------------------------------------------------

  const forbiddenHostRe = /[\0\t\n\r #/:<>?@[\\\]^|]/;
  const forbiddenDomainRe = /[\0-\x20#%/:<>?@[\\\]^|\x7f]/;

  function parseIPv4Number(s) {
    if (s === '') return FAILURE;
    let radix = 10;
    if (s.length >= 2 && (s[1] === 'x' || s[1] === 'X') && s[0] === '0') {
      s = s.slice(2);
      radix = 16;
    } else if (s.length >= 2 && s[0] === '0') {
      s = s.slice(1);
      radix = 8;
    }
    if (s === '') return 0;
    const re = radix === 10 ? /^[0-9]+$/ : radix === 16 ? /^[0-9a-fA-F]+$/ : /^[0-7]+$/;
    if (!regExpTest(re, s)) return FAILURE;
    return parseInt(s, radix);
  }

  function endsInANumber(s) {
    const parts = s.split('.');
    if (parts[parts.length - 1] === '') {
      if (parts.length === 1) return false;
      parts.length--;
    }
    const last = parts[parts.length - 1];
    if (last !== '' && regExpTest(/^[0-9]+$/, last)) return true;
    return parseIPv4Number(last) !== FAILURE;
  }

  // An IPv4 address in any of the forms the standard accepts, serialized.
  function parseIPv4(s) {
    const parts = s.split('.');
    if (parts[parts.length - 1] === '' && parts.length > 1) parts.length--;
    if (parts.length > 4) return FAILURE;
    const numbers = [];
    for (const part of parts) {
      const n = parseIPv4Number(part);
      if (n === FAILURE) return FAILURE;
      numbers[numbers.length] = n;
    }
    for (let i = 0; i < numbers.length - 1; i++) {
      if (numbers[i] > 255) return FAILURE;
    }
    if (numbers[numbers.length - 1] >= 256 ** (5 - numbers.length)) return FAILURE;
    let ipv4 = numbers[numbers.length - 1];
    for (let i = 0; i < numbers.length - 1; i++) ipv4 += numbers[i] * 256 ** (3 - i);
    return `${ipv4 >>> 24}.${(ipv4 >>> 16) & 255}.${(ipv4 >>> 8) & 255}.${ipv4 & 255}`;
  }

  // The eight 16-bit pieces of an IPv6 address, or FAILURE.
  function parseIPv6(input) {
    const address = [0, 0, 0, 0, 0, 0, 0, 0];
    let pieceIndex = 0;
    let compress = null;
    let pointer = 0;
    const at = (i) => (i < input.length ? input.charCodeAt(i) : EOF);
    if (at(pointer) === 0x3a) {
      if (at(pointer + 1) !== 0x3a) return FAILURE;
      pointer += 2;
      pieceIndex++;
      compress = pieceIndex;
    }
    while (at(pointer) !== EOF) {
      if (pieceIndex === 8) return FAILURE;
      if (at(pointer) === 0x3a) {
        if (compress !== null) return FAILURE;
        pointer++;
        pieceIndex++;
        compress = pieceIndex;
        continue;
      }
      let value = 0;
      let length = 0;
      while (length < 4 && isAsciiHexDigit(at(pointer))) {
        value = value * 0x10 + hexValue(at(pointer));
        pointer++;
        length++;
      }
      if (at(pointer) === 0x2e) {
        if (length === 0) return FAILURE;
        pointer -= length;
        if (pieceIndex > 6) return FAILURE;
        let numbersSeen = 0;
        while (at(pointer) !== EOF) {
          let ipv4Piece = null;
          if (numbersSeen > 0) {
            if (at(pointer) === 0x2e && numbersSeen < 4) pointer++;
            else return FAILURE;
          }
          if (!isAsciiDigit(at(pointer))) return FAILURE;
          while (isAsciiDigit(at(pointer))) {
            const number = at(pointer) - 0x30;
            if (ipv4Piece === null) ipv4Piece = number;
            else if (ipv4Piece === 0) return FAILURE;
            else ipv4Piece = ipv4Piece * 10 + number;
            if (ipv4Piece > 255) return FAILURE;
            pointer++;
          }
          address[pieceIndex] = address[pieceIndex] * 0x100 + ipv4Piece;
          numbersSeen++;
          if (numbersSeen === 2 || numbersSeen === 4) pieceIndex++;
        }
        if (numbersSeen !== 4) return FAILURE;
        break;
      } else if (at(pointer) === 0x3a) {
        pointer++;
        if (at(pointer) === EOF) return FAILURE;
      } else if (at(pointer) !== EOF) {
        return FAILURE;
      }
      address[pieceIndex] = value;
      pieceIndex++;
    }
    if (compress !== null) {
      let swaps = pieceIndex - compress;
      pieceIndex = 7;
      while (pieceIndex !== 0 && swaps > 0) {
        const t = address[pieceIndex];
        address[pieceIndex] = address[compress + swaps - 1];
        address[compress + swaps - 1] = t;
        pieceIndex--;
        swaps--;
      }
    } else if (pieceIndex !== 8) {
      return FAILURE;
    }
    return address;
  }

  // The shortest form: lower-case hex, the first longest run of zeros as "::".
  function serializeIPv6(address) {
    let compress = null;
    let longest = 1;
    for (let i = 0; i < 8;) {
      if (address[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && address[j] === 0) j++;
      if (j - i > longest) {
        longest = j - i;
        compress = i;
      }
      i = j;
    }
    let out = '';
    let ignoreZero = false;
    for (let i = 0; i < 8; i++) {
      if (ignoreZero && address[i] === 0) continue;
      ignoreZero = false;
      if (compress === i) {
        out += i === 0 ? '::' : ':';
        ignoreZero = true;
        continue;
      }
      out += address[i].toString(16);
      if (i !== 7) out += ':';
    }
    return out;
  }

  // Punycode (RFC 3492) for the labels of internationalized domain names.
  const punycode = { base: 36, tMin: 1, tMax: 26, skew: 38, damp: 700 };

  function punycodeAdapt(delta, numPoints, firstTime) {
    const { base, tMin, tMax, skew, damp } = punycode;
    delta = firstTime ? mathFloor(delta / damp) : delta >> 1;
    delta += mathFloor(delta / numPoints);
    let k = 0;
    while (delta > ((base - tMin) * tMax) >> 1) {
      delta = mathFloor(delta / (base - tMin));
      k += base;
    }
    return k + mathFloor(((base - tMin + 1) * delta) / (delta + skew));
  }

  const punycodeDigit = (d) => fromCharCode(d < 26 ? 0x61 + d : 0x16 + d);

  function punycodeEncode(label) {
    const { base, tMin, tMax } = punycode;
    const cps = codePoints(label);
    let out = '';
    for (const c of cps) if (c < 0x80) out += fromCharCode(c);
    const basic = out.length;
    let handled = basic;
    if (basic > 0) out += '-';
    let n = 0x80;
    let delta = 0;
    let bias = 72;
    while (handled < cps.length) {
      let m = Infinity;
      for (const c of cps) if (c >= n && c < m) m = c;
      delta += (m - n) * (handled + 1);
      n = m;
      for (const c of cps) {
        if (c < n) delta++;
        if (c !== n) continue;
        let q = delta;
        for (let k = base; ; k += base) {
          const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
          if (q < t) break;
          out += punycodeDigit(t + ((q - t) % (base - t)));
          q = mathFloor((q - t) / (base - t));
        }
        out += punycodeDigit(q);
        bias = punycodeAdapt(delta, handled + 1, handled === basic);
        delta = 0;
        handled++;
      }
      delta++;
      n++;
    }
    return out;
  }

  // Decodes the part of an "xn--" label after the prefix; FAILURE if it is not punycode.
  function punycodeDecode(input) {
    const { base, tMin, tMax } = punycode;
    const out = [];
    const dash = input.lastIndexOf('-');
    for (let i = 0; i < (dash > 0 ? dash : 0); i++) {
      const c = input.charCodeAt(i);
      if (c >= 0x80) return FAILURE;
      out[out.length] = c;
    }
    let n = 0x80;
    let i = 0;
    let bias = 72;
    for (let p = dash > 0 ? dash + 1 : 0; p < input.length;) {
      const oldi = i;
      let w = 1;
      for (let k = base; ; k += base) {
        if (p >= input.length) return FAILURE;
        const c = input.charCodeAt(p++);
        const digit = c >= 0x30 && c <= 0x39 ? c - 0x16 : c >= 0x61 && c <= 0x7a ? c - 0x61 :
          c >= 0x41 && c <= 0x5a ? c - 0x41 : base;
        if (digit >= base) return FAILURE;
        i += digit * w;
        const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
        if (digit < t) break;
        w *= base - t;
        if (i > 0x10ffff * 64) return FAILURE;
      }
      bias = punycodeAdapt(i - oldi, out.length + 1, oldi === 0);
      n += mathFloor(i / (out.length + 1));
      i %= out.length + 1;
      if (n > 0x10ffff) return FAILURE;
      out.splice(i, 0, n);
      i++;
    }
    return out;
  }

  // domainToASCII with a reduced UTS #46 mapping: NFKC, lower case, ideographic full
  // stops, soft hyphens removed; labels with other characters become punycode.
  function domainToASCII(domain) {
    let d = domain;
    if (regExpTest(/[^\x00-\x7f]/, d)) {
      d = stringNormalize(stringToLowerCase(stringNormalize(d, 'NFKC')), 'NFC');
      d = d.replace(/[\u3002\uff0e\uff61]/g, '.').replace(/[\u00ad\u200b\u2060\ufeff]/g, '');
      if (regExpTest(/[\ufffd]/, d)) return FAILURE;
    } else {
      d = stringToLowerCase(d);
    }
    const labels = d.split('.');
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i];
      if (regExpTest(/[^\x00-\x7f]/, label)) {
        // A label that claims to be punycode already must be ASCII (UTS #46).
        if (label.startsWith('xn--')) return FAILURE;
        labels[i] = `xn--${punycodeEncode(label)}`;
      } else if (label.startsWith('xn--')) {
        const decoded = punycodeDecode(label.slice(4));
        if (decoded === FAILURE || decoded.length === 0 ||
            punycodeEncode(reflectApply(fromCodePoint, undefined, decoded)) !== label.slice(4)) {
          return FAILURE;
        }
      }
    }
    return labels.join('.');
  }

  // url.domainToUnicode: the labels of the domain's ASCII form, those in punycode
  // decoded; FAILURE when it has no ASCII form.
  function domainToUnicode(domain) {
    const ascii = domainToASCII(domain);
    if (ascii === FAILURE) return FAILURE;
    const labels = ascii.split('.');
    for (let i = 0; i < labels.length; i++) {
      if (labels[i].startsWith('xn--')) {
        labels[i] = reflectApply(fromCodePoint, undefined, punycodeDecode(labels[i].slice(4)));
      }
    }
    return labels.join('.');
  }

  function parseOpaqueHost(input) {
    if (regExpTest(forbiddenHostRe, input)) return FAILURE;
    return encodeString(input, c0ControlSet);
  }

  // The host parser: the serialized host, or FAILURE.
  function parseHost(input, isOpaque) {
    if (input[0] === '[') {
      if (input[input.length - 1] !== ']') return FAILURE;
      const address = parseIPv6(input.slice(1, -1));
      return address === FAILURE ? FAILURE : `[${serializeIPv6(address)}]`;
    }
    if (isOpaque) return parseOpaqueHost(input);
    const domain = input.indexOf('%') === -1 ? input : hostUtf8Decode(percentDecode(input), false);
    const asciiDomain = domainToASCII(domain);
    if (asciiDomain === FAILURE || asciiDomain === '') return FAILURE;
    if (regExpTest(forbiddenDomainRe, asciiDomain)) return FAILURE;
    if (endsInANumber(asciiDomain)) return parseIPv4(asciiDomain);
    return asciiDomain;
  }

  // --- the state machine -----------------------------------------------------------------

  const SCHEME_START = 1;
  const SCHEME = 2;
  const NO_SCHEME = 3;
  const SPECIAL_RELATIVE_OR_AUTHORITY = 4;
  const PATH_OR_AUTHORITY = 5;
  const RELATIVE = 6;
  const RELATIVE_SLASH = 7;
  const SPECIAL_AUTHORITY_SLASHES = 8;
  const SPECIAL_AUTHORITY_IGNORE_SLASHES = 9;
  const AUTHORITY = 10;
  const HOST = 11;
  const HOSTNAME = 12;
  const PORT = 13;
  const FILE = 14;
  const FILE_SLASH = 15;
  const FILE_HOST = 16;
  const PATH_START = 17;
  const PATH = 18;
  const OPAQUE_PATH = 19;
  const QUERY = 20;
  const FRAGMENT = 21;

  const newURLRecord = () => ({
    scheme: '', username: '', password: '', host: null, port: null, path: [],
    query: null, fragment: null,
  });

  const copyURLRecord = (url) => ({
    scheme: url.scheme, username: url.username, password: url.password, host: url.host,
    port: url.port, path: hasOpaquePath(url) ? url.path : url.path.slice(), query: url.query,
    fragment: url.fragment,
  });

  // The basic URL parser. Without `url`, parses `input` (against `base`, a record or
  // null) into a new record; with `url` and `stateOverride`, changes one part of `url`
  // in place, as the setters do. Returns the record or FAILURE.
  function basicParse(input, base, url, stateOverride) {
    if (url === undefined) {
      url = newURLRecord();
      if (regExpTest(/^[\0-\x20]|[\0-\x20]$/, input)) {
        input = input.replace(/^[\0-\x20]+|[\0-\x20]+$/g, '');
      }
    }
    if (regExpTest(/[\t\n\r]/, input)) input = input.replace(/[\t\n\r]/g, '');
    const cps = codePoints(input);
    const len = cps.length;
    let state = stateOverride || SCHEME_START;
    let buffer = '';
    let bufferCount = 0;
    let atSignSeen = false;
    let insideBrackets = false;
    let passwordTokenSeen = false;
    for (let pointer = 0; pointer <= len; pointer++) {
      const c = pointer < len ? cps[pointer] : EOF;
      // The states most code points are read in come first: a switch tests its cases
      // in order.
      switch (state) {
        case PATH: {
          const slash = c === 0x2f || (isSpecial(url.scheme) && c === 0x5c);
          if (c === EOF || slash || (!stateOverride && (c === 0x3f || c === 0x23))) {
            if (isDoubleDot(buffer)) {
              shortenPath(url);
              if (!slash) url.path[url.path.length] = '';
            } else if (isSingleDot(buffer) && !slash) {
              url.path[url.path.length] = '';
            } else if (!isSingleDot(buffer)) {
              if (url.scheme === 'file' && url.path.length === 0 &&
                  isWindowsDriveLetter(buffer)) {
                buffer = `${buffer[0]}:`;
              }
              url.path[url.path.length] = buffer;
            }
            buffer = '';
            if (c === 0x3f) {
              url.query = '';
              state = QUERY;
            } else if (c === 0x23) {
              url.fragment = '';
              state = FRAGMENT;
            }
          } else {
            buffer += encodeCodePoint(c, pathSet);
          }
          break;
        }

        case QUERY:
          // Encoded one code point at a time: the same as encoding the buffer the
          // standard collects, since the encoding is always UTF-8.
          if (c === 0x23 && !stateOverride) {
            url.fragment = '';
            state = FRAGMENT;
          } else if (c !== EOF) {
            url.query += encodeCodePoint(c, isSpecial(url.scheme) ? specialQuerySet : querySet);
          }
          break;

        case FRAGMENT:
          if (c !== EOF) url.fragment += encodeCodePoint(c, fragmentSet);
          break;

        case HOST:
        case HOSTNAME:
          if (stateOverride && url.scheme === 'file') {
            pointer--;
            state = FILE_HOST;
          } else if (c === 0x3a && !insideBrackets) {
            if (buffer === '') return FAILURE;
            if (stateOverride === HOSTNAME) return FAILURE;
            const parsed = parseHost(buffer, !isSpecial(url.scheme));
            if (parsed === FAILURE) return FAILURE;
            url.host = parsed;
            buffer = '';
            state = PORT;
          } else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 ||
                     (isSpecial(url.scheme) && c === 0x5c)) {
            pointer--;
            if (isSpecial(url.scheme) && buffer === '') return FAILURE;
            if (stateOverride && buffer === '' &&
                (includesCredentials(url) || url.port !== null)) {
              return FAILURE;
            }
            const parsed = parseHost(buffer, !isSpecial(url.scheme));
            if (parsed === FAILURE) return FAILURE;
            url.host = parsed;
            buffer = '';
            state = PATH_START;
            if (stateOverride) return url;
          } else {
            if (c === 0x5b) insideBrackets = true;
            if (c === 0x5d) insideBrackets = false;
            buffer += fromCodePoint(c);
          }
          break;

        case AUTHORITY:
          if (c === 0x40) {
            if (atSignSeen) buffer = `%40${buffer}`;
            atSignSeen = true;
            for (const ch of buffer) {
              const cp = ch.codePointAt(0);
              if (cp === 0x3a && !passwordTokenSeen) {
                passwordTokenSeen = true;
                continue;
              }
              if (passwordTokenSeen) url.password += encodeCodePoint(cp, userinfoSet);
              else url.username += encodeCodePoint(cp, userinfoSet);
            }
            buffer = '';
            bufferCount = 0;
          } else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 ||
                     (isSpecial(url.scheme) && c === 0x5c)) {
            if (atSignSeen && buffer === '') return FAILURE;
            pointer -= bufferCount + 1;
            buffer = '';
            bufferCount = 0;
            state = HOST;
          } else {
            buffer += fromCodePoint(c);
            bufferCount++;
          }
          break;

        case SCHEME:
          if (isAsciiAlpha(c) || isAsciiDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) {
            buffer += fromCharCode(isAsciiAlpha(c) ? c | 0x20 : c);
          } else if (c === 0x3a) {
            if (stateOverride) {
              if (isSpecial(url.scheme) !== isSpecial(buffer)) return url;
              if ((includesCredentials(url) || url.port !== null) && buffer === 'file') return url;
              if (url.scheme === 'file' && url.host === '') return url;
            }
            url.scheme = buffer;
            if (stateOverride) {
              if (url.port === defaultPort(url.scheme)) url.port = null;
              return url;
            }
            buffer = '';
            if (url.scheme === 'file') {
              state = FILE;
            } else if (isSpecial(url.scheme) && base !== null && base.scheme === url.scheme) {
              state = SPECIAL_RELATIVE_OR_AUTHORITY;
            } else if (isSpecial(url.scheme)) {
              state = SPECIAL_AUTHORITY_SLASHES;
            } else if (cps[pointer + 1] === 0x2f) {
              state = PATH_OR_AUTHORITY;
              pointer++;
            } else {
              url.path = '';
              state = OPAQUE_PATH;
            }
          } else if (!stateOverride) {
            buffer = '';
            state = NO_SCHEME;
            pointer = -1;
          } else {
            return FAILURE;
          }
          break;

        case SCHEME_START:
          if (isAsciiAlpha(c)) {
            buffer += fromCharCode(c | 0x20);
            state = SCHEME;
          } else if (!stateOverride) {
            state = NO_SCHEME;
            pointer--;
          } else {
            return FAILURE;
          }
          break;

        case PORT:
          if (isAsciiDigit(c)) {
            buffer += fromCharCode(c);
          } else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 ||
                     (isSpecial(url.scheme) && c === 0x5c) || stateOverride) {
            if (buffer !== '') {
              const port = parseInt(buffer, 10);
              if (port > 65535) return FAILURE;
              url.port = port === defaultPort(url.scheme) ? null : port;
              buffer = '';
            }
            if (stateOverride) return url;
            state = PATH_START;
            pointer--;
          } else {
            return FAILURE;
          }
          break;

        case PATH_START:
          if (isSpecial(url.scheme)) {
            state = PATH;
            if (c !== 0x2f && c !== 0x5c) pointer--;
          } else if (!stateOverride && c === 0x3f) {
            url.query = '';
            state = QUERY;
          } else if (!stateOverride && c === 0x23) {
            url.fragment = '';
            state = FRAGMENT;
          } else if (c !== EOF) {
            state = PATH;
            if (c !== 0x2f) pointer--;
          } else if (stateOverride && url.host === null) {
            url.path[url.path.length] = '';
          }
          break;

        case OPAQUE_PATH:
          if (c === 0x3f) {
            url.query = '';
            state = QUERY;
          } else if (c === 0x23) {
            url.fragment = '';
            state = FRAGMENT;
          } else if (c !== EOF) {
            url.path += encodeCodePoint(c, c0ControlSet);
          }
          break;

        case SPECIAL_AUTHORITY_IGNORE_SLASHES:
          if (c !== 0x2f && c !== 0x5c) {
            state = AUTHORITY;
            pointer--;
          }
          break;

        case SPECIAL_AUTHORITY_SLASHES:
          state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
          if (c === 0x2f && cps[pointer + 1] === 0x2f) pointer++;
          else pointer--;
          break;

        case NO_SCHEME:
          if (base === null || (hasOpaquePath(base) && c !== 0x23)) return FAILURE;
          if (hasOpaquePath(base) && c === 0x23) {
            url.scheme = base.scheme;
            url.path = base.path;
            url.query = base.query;
            url.fragment = '';
            state = FRAGMENT;
          } else if (base.scheme !== 'file') {
            state = RELATIVE;
            pointer--;
          } else {
            state = FILE;
            pointer--;
          }
          break;

        case RELATIVE:
          url.scheme = base.scheme;
          if (c === 0x2f || (isSpecial(url.scheme) && c === 0x5c)) {
            state = RELATIVE_SLASH;
          } else {
            url.username = base.username;
            url.password = base.password;
            url.host = base.host;
            url.port = base.port;
            url.path = base.path.slice();
            url.query = base.query;
            if (c === 0x3f) {
              url.query = '';
              state = QUERY;
            } else if (c === 0x23) {
              url.fragment = '';
              state = FRAGMENT;
            } else if (c !== EOF) {
              url.query = null;
              shortenPath(url);
              state = PATH;
              pointer--;
            }
          }
          break;

        case RELATIVE_SLASH:
          if (isSpecial(url.scheme) && (c === 0x2f || c === 0x5c)) {
            state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
          } else if (c === 0x2f) {
            state = AUTHORITY;
          } else {
            url.username = base.username;
            url.password = base.password;
            url.host = base.host;
            url.port = base.port;
            state = PATH;
            pointer--;
          }
          break;

        case SPECIAL_RELATIVE_OR_AUTHORITY:
          if (c === 0x2f && cps[pointer + 1] === 0x2f) {
            state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
            pointer++;
          } else {
            state = RELATIVE;
            pointer--;
          }
          break;

        case PATH_OR_AUTHORITY:
          if (c === 0x2f) {
            state = AUTHORITY;
          } else {
            state = PATH;
            pointer--;
          }
          break;

        case FILE:
          url.scheme = 'file';
          url.host = '';
          if (c === 0x2f || c === 0x5c) {
            state = FILE_SLASH;
          } else if (base !== null && base.scheme === 'file') {
            url.host = base.host;
            url.path = base.path.slice();
            url.query = base.query;
            if (c === 0x3f) {
              url.query = '';
              state = QUERY;
            } else if (c === 0x23) {
              url.fragment = '';
              state = FRAGMENT;
            } else if (c !== EOF) {
              url.query = null;
              if (!startsWithWindowsDriveLetter(cps, pointer)) shortenPath(url);
              else url.path = [];
              state = PATH;
              pointer--;
            }
          } else {
            state = PATH;
            pointer--;
          }
          break;

        case FILE_SLASH:
          if (c === 0x2f || c === 0x5c) {
            state = FILE_HOST;
          } else {
            if (base !== null && base.scheme === 'file') {
              url.host = base.host;
              if (!startsWithWindowsDriveLetter(cps, pointer) && base.path.length > 0 &&
                  isNormalizedWindowsDriveLetter(base.path[0])) {
                url.path[url.path.length] = base.path[0];
              }
            }
            state = PATH;
            pointer--;
          }
          break;

        case FILE_HOST:
          if (c === EOF || c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23) {
            pointer--;
            if (!stateOverride && isWindowsDriveLetter(buffer)) {
              // The drive letter stays in buffer and becomes the first path segment.
              state = PATH;
            } else if (buffer === '') {
              url.host = '';
              if (stateOverride) return url;
              state = PATH_START;
            } else {
              let parsed = parseHost(buffer, !isSpecial(url.scheme));
              if (parsed === FAILURE) return FAILURE;
              if (parsed === 'localhost') parsed = '';
              url.host = parsed;
              if (stateOverride) return url;
              buffer = '';
              state = PATH_START;
            }
          } else {
            buffer += fromCodePoint(c);
          }
          break;
      }
    }
    return url;
  }

  function serializePath(url) {
    if (hasOpaquePath(url)) return url.path;
    let out = '';
    for (const segment of url.path) out += `/${segment}`;
    return out;
  }

  function serializeURL(url, excludeFragment) {
    let out = `${url.scheme}:`;
    if (url.host !== null) {
      out += '//';
      if (includesCredentials(url)) {
        out += url.username;
        if (url.password !== '') out += `:${url.password}`;
        out += '@';
      }
      out += url.host;
      if (url.port !== null) out += `:${url.port}`;
    } else if (!hasOpaquePath(url) && url.path.length > 1 && url.path[0] === '') {
      out += '/.';
    }
    out += serializePath(url);
    if (url.query !== null) out += `?${url.query}`;
    if (!excludeFragment && url.fragment !== null) out += `#${url.fragment}`;
    return out;
  }

  function serializeOrigin(url) {
    switch (url.scheme) {
      case 'blob': {
        const inner = basicParse(serializePath(url), null);
        if (inner !== FAILURE && (inner.scheme === 'http' || inner.scheme === 'https')) {
          return serializeOrigin(inner);
        }
        return 'null';
      }
      case 'ftp':
      case 'http':
      case 'https':
      case 'ws':
      case 'wss':
        return `${url.scheme}://${url.host}${url.port === null ? '' : `:${url.port}`}`;
      default:
        return 'null';
    }
  }

  function stripTrailingSpacesFromOpaquePath(url) {
    if (!hasOpaquePath(url) || url.fragment !== null || url.query !== null) return;
    url.path = url.path.replace(/ +$/, '');
  }

  // --- application/x-www-form-urlencoded -------------------------------------------------

  function formDecode(s) {
    s = s.replace(/\+/g, ' ');
    return s.indexOf('%') === -1 ? s : hostUtf8Decode(percentDecode(s), false);
  }

  function parseFormEncoded(input) {
    const list = [];
    for (const sequence of input.split('&')) {
      if (sequence === '') continue;
      const eq = sequence.indexOf('=');
      const name = eq === -1 ? sequence : sequence.slice(0, eq);
      const value = eq === -1 ? '' : sequence.slice(eq + 1);
      list[list.length] = [formDecode(name), formDecode(value)];
    }
    return list;
  }

  const formSafeRe = /^[A-Za-z0-9*\-._]*$/;
  function formEncode(s) {
    if (regExpTest(formSafeRe, s)) return s;
    let out = '';
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (c === 0x20) {
        out += '+';
      } else if (c < 0x80 && (isAsciiAlpha(c) || isAsciiDigit(c) || c === 0x2a || c === 0x2d ||
                              c === 0x2e || c === 0x5f)) {
        out += ch;
      } else {
        out += c < 0x80 ? pctByte[c] : encodeCodePoint(c, c0ControlSet);
      }
    }
    return out;
  }

  function serializeFormEncoded(list) {
    let out = '';
    for (let i = 0; i < list.length; i++) {
      if (i > 0) out += '&';
      out += `${formEncode(list[i][0])}=${formEncode(list[i][1])}`;
    }
    return out;
  }

  // ---------------------------------------------------------------------------
  // URLSearchParams
  // ---------------------------------------------------------------------------

  // URLSearchParams -> { list: [[name, value], ...], url: the URL's state or null }.
  const paramsState = new WeakMap();

  function paramsSlot(self) {
    const state = weakMapGet(paramsState, self);
    if (state === undefined) throw invalidThis('URLSearchParams');
    return state;
  }

  // The URL Standard's "update steps": the list written back to the URL's query.
  function updateURLQuery(state) {
    if (state.url === null) return;
    const serialized = serializeFormEncoded(state.list);
    const url = state.url.record;
    url.query = serialized === '' ? null : serialized;
    if (url.query === null) stripTrailingSpacesFromOpaquePath(url);
  }

  const invalidTuple = () => nodeError(TypeError, 'ERR_INVALID_TUPLE',
    'Each query pair must be an iterable [name, value] tuple');

  class URLSearchParams {
    constructor(init = undefined) {
      const list = [];
      if (init == null) {
        // nothing
      } else if (typeof init === 'object' || typeof init === 'function') {
        const method = init[Symbol.iterator];
        const other = weakMapGet(paramsState, init);
        if (other !== undefined && method === URLSearchParams.prototype[Symbol.iterator]) {
          for (const [name, value] of other.list) list[list.length] = [name, value];
        } else if (method != null) {
          if (typeof method !== 'function') {
            throw nodeError(TypeError, 'ERR_ARG_NOT_ITERABLE', 'Query pairs must be iterable');
          }
          for (const pair of init) {
            if (pair == null || (typeof pair !== 'object' && typeof pair !== 'function') ||
                typeof pair[Symbol.iterator] !== 'function') {
              throw invalidTuple();
            }
            const items = [];
            for (const item of pair) items[items.length] = toUSVString(item);
            if (items.length !== 2) throw invalidTuple();
            list[list.length] = items;
          }
        } else {
          const seen = new Map();
          for (const key of reflectOwnKeys(init)) {
            const desc = getOwnPropertyDescriptor(init, key);
            if (desc === undefined || !desc.enumerable) continue;
            const name = toUSVString(key);
            const value = toUSVString(init[key]);
            if (mapHas(seen, name)) {
              list[mapGet(seen, name)][1] = value;
            } else {
              mapSet(seen, name, list.length);
              list[list.length] = [name, value];
            }
          }
        }
      } else {
        let s = toUSVString(init);
        if (s[0] === '?') s = s.slice(1);
        const parsed = parseFormEncoded(s);
        for (let i = 0; i < parsed.length; i++) list[i] = parsed[i];
      }
      weakMapSet(paramsState, this, { list, url: null });
    }

    get size() {
      return paramsSlot(this).list.length;
    }

    append(name, value) {
      const state = paramsSlot(this);
      if (arguments.length < 2) throw missingArgs('name', 'value');
      state.list[state.list.length] = [toUSVString(name), toUSVString(value)];
      updateURLQuery(state);
    }

    delete(name, value = undefined) {
      const state = paramsSlot(this);
      if (arguments.length < 1) throw missingArgs('name');
      name = toUSVString(name);
      const kept = [];
      if (value !== undefined) {
        value = toUSVString(value);
        for (const pair of state.list) {
          if (pair[0] !== name || pair[1] !== value) kept[kept.length] = pair;
        }
      } else {
        for (const pair of state.list) if (pair[0] !== name) kept[kept.length] = pair;
      }
      state.list = kept;
      updateURLQuery(state);
    }

    get(name) {
      const state = paramsSlot(this);
      if (arguments.length < 1) throw missingArgs('name');
      name = toUSVString(name);
      for (const pair of state.list) if (pair[0] === name) return pair[1];
      return null;
    }

    getAll(name) {
      const state = paramsSlot(this);
      if (arguments.length < 1) throw missingArgs('name');
      name = toUSVString(name);
      const values = [];
      for (const pair of state.list) if (pair[0] === name) values[values.length] = pair[1];
      return values;
    }

    has(name, value = undefined) {
      const state = paramsSlot(this);
      if (arguments.length < 1) throw missingArgs('name');
      name = toUSVString(name);
      if (value !== undefined) value = toUSVString(value);
      for (const pair of state.list) {
        if (pair[0] === name && (value === undefined || pair[1] === value)) return true;
      }
      return false;
    }

    set(name, value) {
      const state = paramsSlot(this);
      if (arguments.length < 2) throw missingArgs('name', 'value');
      name = toUSVString(name);
      value = toUSVString(value);
      const list = [];
      let found = false;
      for (const pair of state.list) {
        if (pair[0] !== name) {
          list[list.length] = pair;
        } else if (!found) {
          found = true;
          list[list.length] = [name, value];
        }
      }
      if (!found) list[list.length] = [name, value];
      state.list = list;
      updateURLQuery(state);
    }

    // A stable sort by name, comparing UTF-16 code units.
    sort() {
      const state = paramsSlot(this);
      const indexed = state.list.map((pair, i) => [pair, i]);
      indexed.sort((a, b) => {
        if (a[0][0] < b[0][0]) return -1;
        if (a[0][0] > b[0][0]) return 1;
        return a[1] - b[1];
      });
      state.list = indexed.map((x) => x[0]);
      updateURLQuery(state);
    }

    entries() {
      return new URLSearchParamsIterator(this, 'key+value');
    }

    forEach(callback, thisArg = undefined) {
      const state = paramsSlot(this);
      validateFunction(callback, 'callback');
      for (let i = 0; i < state.list.length; i++) {
        const [name, value] = state.list[i];
        reflectApply(callback, thisArg, [value, name, this]);
      }
    }

    keys() {
      return new URLSearchParamsIterator(this, 'key');
    }

    values() {
      return new URLSearchParamsIterator(this, 'value');
    }

    toString() {
      return serializeFormEncoded(paramsSlot(this).list);
    }

    [customInspect](depth, options) {
      const state = paramsSlot(this);
      if (typeof depth === 'number' && depth < 0) return '[Object]';
      const inner = { ...options };
      if (depth !== null) inner.depth = depth - 1;
      const output = state.list.map(([name, value]) =>
        `${inspect(name, inner)} => ${inspect(value, inner)}`);
      const length = output.reduce((sum, s) => sum + s.length + 2, -2);
      if (length > options.breakLength) {
        return `URLSearchParams {\n  ${output.join(',\n  ')} }`;
      }
      return output.length > 0 ? `URLSearchParams { ${output.join(', ')} }` : 'URLSearchParams {}';
    }
  }
  defineInterface(URLSearchParams.prototype, 'URLSearchParams');
  defineProperty(URLSearchParams.prototype, Symbol.iterator, {
    value: URLSearchParams.prototype.entries, writable: true, enumerable: false,
    configurable: true,
  });

  const iteratorState = new WeakMap();

  // The live iterators of keys(), values() and entries().
  class URLSearchParamsIterator {
    constructor(params, kind) {
      weakMapSet(iteratorState, this, { params, kind, index: 0 });
    }

    next() {
      const state = weakMapGet(iteratorState, this);
      if (state === undefined) throw invalidThis('URLSearchParamsIterator');
      const list = paramsSlot(state.params).list;
      if (state.index >= list.length) return { value: undefined, done: true };
      const [name, value] = list[state.index++];
      return {
        value: state.kind === 'key' ? name : state.kind === 'value' ? value : [name, value],
        done: false,
      };
    }

    [customInspect](depth, options) {
      const state = weakMapGet(iteratorState, this);
      if (state === undefined) throw invalidThis('URLSearchParamsIterator');
      const inner = { ...options };
      if (depth !== null) inner.depth = depth - 1;
      const rest = paramsSlot(state.params).list.slice(state.index);
      const output = rest.map(([name, value]) =>
        (state.kind === 'key' ? name : state.kind === 'value' ? value : [name, value]));
      const strings = output.map((item) => inspect(item, inner));
      const broken = inspect(output, inner).includes('\n');
      return `URLSearchParams Iterator {${broken ? `\n  ${strings.join(',\n  ')}` :
        ` ${strings.join(', ')}`} }`;
    }
  }
  setPrototypeOf(URLSearchParamsIterator.prototype, IteratorPrototype);
  defineProperty(URLSearchParamsIterator.prototype, Symbol.toStringTag, {
    value: 'URLSearchParams Iterator', configurable: true,
  });
  defineProperty(URLSearchParamsIterator.prototype, 'next', { enumerable: true });

  // ---------------------------------------------------------------------------
  // URL
  // ---------------------------------------------------------------------------

  // URL -> { record, params }.
  const urlState = new WeakMap();

  function urlSlot(self) {
    const state = weakMapGet(urlState, self);
    if (state === undefined) throw new TypeError('Receiver must be an instance of class URL');
    return state;
  }

  function invalidURL(input, base) {
    const err = new TypeError('Invalid URL');
    err.input = input;
    if (base !== undefined) err.base = base;
    err.code = 'ERR_INVALID_URL';
    return err;
  }

  // Parses url against base as the constructor does: the record, or FAILURE.
  function parseWithBase(url, base) {
    let baseRecord = null;
    if (base !== undefined) {
      baseRecord = basicParse(base, null);
      if (baseRecord === FAILURE) return FAILURE;
    }
    return basicParse(url, baseRecord);
  }

  function setParamsFromQuery(state) {
    const q = state.record.query;
    paramsSlot(state.params).list = q === null ? [] : parseFormEncoded(q);
  }

  class URL {
    constructor(url, base = undefined) {
      if (arguments.length === 0) throw missingArgs('url');
      url = toUSVString(url);
      if (base !== undefined) base = toUSVString(base);
      const record = parseWithBase(url, base);
      if (record === FAILURE) throw invalidURL(url, base);
      const params = new URLSearchParams();
      const state = { record, params };
      paramsSlot(params).url = state;
      setParamsFromQuery(state);
      weakMapSet(urlState, this, state);
    }

    static canParse(url, base = undefined) {
      if (arguments.length === 0) throw missingArgs('url');
      url = toUSVString(url);
      if (base !== undefined) base = toUSVString(base);
      return parseWithBase(url, base) !== FAILURE;
    }

    toString() {
      return serializeURL(urlSlot(this).record, false);
    }

    static parse(url, base = undefined) {
      if (arguments.length === 0) throw missingArgs('url');
      try {
        return new URL(url, base);
      } catch {
        return null;
      }
    }

    get href() {
      return serializeURL(urlSlot(this).record, false);
    }

    set href(value) {
      const state = urlSlot(this);
      value = toUSVString(value);
      const record = basicParse(value, null);
      if (record === FAILURE) throw invalidURL(value);
      state.record = record;
      setParamsFromQuery(state);
    }

    get origin() {
      return serializeOrigin(urlSlot(this).record);
    }

    get protocol() {
      return `${urlSlot(this).record.scheme}:`;
    }

    set protocol(value) {
      const state = urlSlot(this);
      basicParse(`${toUSVString(value)}:`, null, state.record, SCHEME_START);
    }

    get username() {
      return urlSlot(this).record.username;
    }

    set username(value) {
      const { record } = urlSlot(this);
      value = toUSVString(value);
      if (record.host === null || record.host === '' || record.scheme === 'file') return;
      record.username = encodeString(value, userinfoSet);
    }

    get password() {
      return urlSlot(this).record.password;
    }

    set password(value) {
      const { record } = urlSlot(this);
      value = toUSVString(value);
      if (record.host === null || record.host === '' || record.scheme === 'file') return;
      record.password = encodeString(value, userinfoSet);
    }

    get host() {
      const { record } = urlSlot(this);
      if (record.host === null) return '';
      return record.port === null ? record.host : `${record.host}:${record.port}`;
    }

    set host(value) {
      const state = urlSlot(this);
      value = toUSVString(value);
      if (hasOpaquePath(state.record)) return;
      const copy = copyURLRecord(state.record);
      if (basicParse(value, null, copy, HOST) !== FAILURE) state.record = copy;
    }

    get hostname() {
      const { record } = urlSlot(this);
      return record.host === null ? '' : record.host;
    }

    set hostname(value) {
      const state = urlSlot(this);
      value = toUSVString(value);
      if (hasOpaquePath(state.record)) return;
      const copy = copyURLRecord(state.record);
      if (basicParse(value, null, copy, HOSTNAME) !== FAILURE) state.record = copy;
    }

    get port() {
      const { port } = urlSlot(this).record;
      return port === null ? '' : `${port}`;
    }

    set port(value) {
      const state = urlSlot(this);
      value = toUSVString(value);
      const { record } = state;
      if (record.host === null || record.host === '' || record.scheme === 'file') return;
      if (value === '') {
        record.port = null;
        return;
      }
      const copy = copyURLRecord(record);
      if (basicParse(value, null, copy, PORT) !== FAILURE) state.record = copy;
    }

    get pathname() {
      return serializePath(urlSlot(this).record);
    }

    set pathname(value) {
      const state = urlSlot(this);
      value = toUSVString(value);
      if (hasOpaquePath(state.record)) return;
      const copy = copyURLRecord(state.record);
      copy.path = [];
      if (basicParse(value, null, copy, PATH_START) !== FAILURE) state.record = copy;
    }

    get search() {
      const { query } = urlSlot(this).record;
      return query === null || query === '' ? '' : `?${query}`;
    }

    set search(value) {
      const state = urlSlot(this);
      value = toUSVString(value);
      const { record } = state;
      if (value === '') {
        record.query = null;
        paramsSlot(state.params).list = [];
        stripTrailingSpacesFromOpaquePath(record);
        return;
      }
      const input = value[0] === '?' ? value.slice(1) : value;
      record.query = '';
      basicParse(input, null, record, QUERY);
      paramsSlot(state.params).list = parseFormEncoded(input);
    }

    get searchParams() {
      return urlSlot(this).params;
    }

    get hash() {
      const { fragment } = urlSlot(this).record;
      return fragment === null || fragment === '' ? '' : `#${fragment}`;
    }

    set hash(value) {
      const { record } = urlSlot(this);
      value = toUSVString(value);
      if (value === '') {
        record.fragment = null;
        stripTrailingSpacesFromOpaquePath(record);
        return;
      }
      const input = value[0] === '#' ? value.slice(1) : value;
      record.fragment = '';
      basicParse(input, null, record, FRAGMENT);
    }

    toJSON() {
      return serializeURL(urlSlot(this).record, false);
    }

    [customInspect](depth, options) {
      const state = urlSlot(this);
      if (typeof depth === 'number' && depth < 0) return this;
      const obj = { __proto__: { constructor: URL } };
      obj.href = this.href;
      obj.origin = this.origin;
      obj.protocol = this.protocol;
      obj.username = this.username;
      obj.password = this.password;
      obj.host = this.host;
      obj.hostname = this.hostname;
      obj.port = this.port;
      obj.pathname = this.pathname;
      obj.search = this.search;
      obj.searchParams = state.params;
      obj.hash = this.hash;
      return `URL ${inspect(obj, options)}`;
    }
  }
  defineInterface(URL.prototype, 'URL');
  defineProperty(URL, 'parse', { enumerable: true });
  defineProperty(URL, 'canParse', { enumerable: true });

  // ---------------------------------------------------------------------------
  // structuredClone
  // ---------------------------------------------------------------------------

  const errorPrototypes = {
    __proto__: null,
    Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError,
  };

  const dataCloneError = (what) => domException(`${what} could not be cloned.`, 'DataCloneError');

  const ObjectPrototype = Object.prototype;
  // Kinds whose Object.prototype.toString tag comes from an internal slot, so that the
  // tag alone tells them (unless Symbol.toStringTag overrides it).
  const slotTags = {
    __proto__: null,
    '[object Date]': 'Date', '[object RegExp]': 'RegExp', '[object Error]': 'Error',
    '[object Number]': 'Number', '[object String]': 'String', '[object Boolean]': 'Boolean',
  };
  const kindChecks = {
    __proto__: null,
    Date: dateGetTime, RegExp: regExpSource, Number: numberValueOf, String: stringValueOf,
    Boolean: booleanValueOf, Map: mapSize, Set: setSize,
  };

  // The serializable kind of an object, by the built-in brand checks. A failed check
  // throws, which costs: plain objects skip them, and the toString tag picks the one
  // check to try first.
  function cloneKind(v) {
    if (isArray(v)) return 'Array';
    const proto = getPrototypeOf(v);
    if (proto === ObjectPrototype || proto === null) return 'Object';
    const tag = objectToString(v);
    const hinted = slotTags[tag] !== undefined ? slotTags[tag] :
      tag === '[object Map]' ? 'Map' : tag === '[object Set]' ? 'Set' : undefined;
    if (hinted === 'Error') return 'Error';
    if (hinted !== undefined && hasBrand(kindChecks[hinted], v)) return hinted;
    return cloneKindByBrand(v);
  }

  function cloneKindByBrand(v) {
    if (typedArrayTag(v) !== undefined) return 'TypedArray';
    if (hostPromiseState(v) >= 0) return 'Promise';
    if (isArrayBuffer(v)) return 'ArrayBuffer';
    if (isSharedArrayBuffer(v)) return 'SharedArrayBuffer';
    if (isDataView(v)) return 'DataView';
    if (hasBrand(dateGetTime, v)) return 'Date';
    if (v !== RegExp.prototype && hasBrand(regExpSource, v)) return 'RegExp';
    if (hasBrand(mapSize, v)) return 'Map';
    if (hasBrand(setSize, v)) return 'Set';
    if (hasBrand(numberValueOf, v)) return 'Number';
    if (hasBrand(stringValueOf, v)) return 'String';
    if (hasBrand(booleanValueOf, v)) return 'Boolean';
    if (hasBrand(bigintValueOf, v)) return 'BigInt';
    if (hasBrand(symbolValueOf, v)) return 'Symbol';
    if (hasBrand((x) => weakMapHas(x, x), v)) return 'WeakMap';
    if (hasBrand((x) => weakSetHas(x, x), v)) return 'WeakSet';
    if (objectToString(v) === '[object Error]' || v instanceof Error) return 'Error';
    return 'Object';
  }

  // The structured clone of `value`; `memory` maps what was copied to its copy, so that
  // cycles and shared references survive.
  function cloneValue(value, memory) {
    if (typeof value === 'symbol') throw dataCloneError(symbolToString(value));
    if (typeof value === 'function') throw dataCloneError(functionToString(value));
    if (value === null || typeof value !== 'object') return value;
    const known = mapGet(memory, value);
    if (known !== undefined) return known;
    const kind = cloneKind(value);
    let copy;
    switch (kind) {
      case 'Array': {
        copy = new Array(value.length);
        mapSet(memory, value, copy);
        for (const key of objectKeys(value)) copy[key] = cloneValue(value[key], memory);
        return copy;
      }
      case 'ArrayBuffer':
        copy = arrayBufferSlice(value, 0);
        mapSet(memory, value, copy);
        return copy;
      case 'SharedArrayBuffer':
        // The memory is shared, as structuredClone shares it between agents.
        mapSet(memory, value, value);
        return value;
      case 'TypedArray': {
        const buffer = cloneValue(typedArrayBuffer(value), memory);
        copy = new typedArrayConstructors[typedArrayTag(value)](buffer,
          typedArrayByteOffset(value), typedArrayLength(value));
        mapSet(memory, value, copy);
        return copy;
      }
      case 'DataView': {
        const buffer = cloneValue(dataViewBuffer(value), memory);
        copy = new DataView(buffer, dataViewByteOffset(value), dataViewByteLength(value));
        mapSet(memory, value, copy);
        return copy;
      }
      case 'Date':
        copy = new Date(dateGetTime(value));
        mapSet(memory, value, copy);
        return copy;
      case 'RegExp':
        copy = new RegExp(regExpSource(value), regExpFlags(value));
        mapSet(memory, value, copy);
        return copy;
      case 'Map': {
        copy = new Map();
        mapSet(memory, value, copy);
        const entries = [];
        for (const entry of mapEntries(value)) entries[entries.length] = entry;
        for (const [k, v] of entries) mapSet(copy, cloneValue(k, memory), cloneValue(v, memory));
        return copy;
      }
      case 'Set': {
        copy = new Set();
        mapSet(memory, value, copy);
        const items = [];
        for (const item of setValues(value)) items[items.length] = item;
        for (const item of items) setAdd(copy, cloneValue(item, memory));
        return copy;
      }
      case 'Number':
        copy = Object(numberValueOf(value));
        break;
      case 'String':
        copy = Object(stringValueOf(value));
        break;
      case 'Boolean':
        copy = Object(booleanValueOf(value));
        break;
      case 'BigInt':
        copy = Object(bigintValueOf(value));
        break;
      case 'Symbol':
        throw dataCloneError('[object Symbol]');
      case 'WeakMap':
      case 'WeakSet':
      case 'Promise':
        throw dataCloneError(`#<${kind}>`);
      case 'Error': {
        let name;
        try {
          name = value.name;
        } catch {
          name = undefined;
        }
        const Ctor = typeof name === 'string' && errorPrototypes[name] !== undefined ?
          errorPrototypes[name] : Error;
        copy = new Ctor();
        mapSet(memory, value, copy);
        const message = getOwnPropertyDescriptor(value, 'message');
        if (message !== undefined && 'value' in message) {
          defineProperty(copy, 'message', {
            value: `${message.value}`, writable: true, enumerable: false, configurable: true,
          });
        }
        const stack = getOwnPropertyDescriptor(value, 'stack');
        if (stack !== undefined && typeof stack.value === 'string') {
          defineProperty(copy, 'stack', {
            value: stack.value, writable: true, enumerable: false, configurable: true,
          });
        } else {
          delete copy.stack;
        }
        const cause = getOwnPropertyDescriptor(value, 'cause');
        if (cause !== undefined && 'value' in cause) {
          defineProperty(copy, 'cause', {
            value: cloneValue(cause.value, memory), writable: true, enumerable: false,
            configurable: true,
          });
        }
        return copy;
      }
      default: {
        copy = {};
        mapSet(memory, value, copy);
        for (const key of objectKeys(value)) {
          if (hasOwn(value, key)) copy[key] = cloneValue(value[key], memory);
        }
        return copy;
      }
    }
    mapSet(memory, value, copy);
    return copy;
  }

  // Both parameters are optional to the signature, so that `length` is 0 as in Node.
  function structuredClone(value = undefined, options = undefined) {
    if (arguments.length === 0) {
      throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The value argument must be specified');
    }
    if (options !== undefined && options !== null && typeof options !== 'object') {
      throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
        'The options argument must be either an object or undefined');
    }
    const memory = new Map();
    const transferred = [];
    const transfer = options == null ? undefined : options.transfer;
    if (transfer !== undefined) {
      if (transfer === null || typeof transfer !== 'object' ||
          typeof transfer[Symbol.iterator] !== 'function') {
        throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
          'Optional transferList argument must be an iterable');
      }
      for (const item of transfer) {
        if (!isArrayBuffer(item)) {
          throw nodeError(TypeError, 'ERR_INVALID_TRANSFER_OBJECT',
            'Found invalid object in transferList');
        }
        if (mapHas(memory, item)) {
          throw domException('Transfer list contains duplicate ArrayBuffer', 'DataCloneError');
        }
        mapSet(memory, item, arrayBufferSlice(item, 0));
        transferred[transferred.length] = item;
      }
    }
    const copy = cloneValue(value, memory);
    for (const buffer of transferred) hostDetach(buffer);
    return copy;
  }

  // ---------------------------------------------------------------------------
  // Globals
  // ---------------------------------------------------------------------------

  // Functions keep the names Node gives them.
  const globals = {
    global: globalThis, clearImmediate, setImmediate, clearInterval, clearTimeout,
    setInterval, setTimeout, queueMicrotask, structuredClone, atob, btoa, performance,
  };
  for (const name of objectKeys(globals)) {
    defineProperty(globalThis, name, {
      value: globals[name], writable: true, enumerable: true, configurable: true,
    });
  }
  // Read-only, as Node's.
  defineProperty(globalThis, 'crypto', {
    get: defineProperty(() => crypto, 'name', { value: 'get crypto' }), set: undefined,
    enumerable: true, configurable: true,
  });
  for (const ctor of [DOMException, TextEncoder, TextDecoder, URL, URLSearchParams]) {
    defineProperty(globalThis, ctor.name, {
      value: ctor, writable: true, enumerable: false, configurable: true,
    });
  }

  // The completion value of this script: the event loop's entry points for the
  // host, and the Node-style error helpers and brand checks that fs.js shares.
  // url's domainToASCII and domainToUnicode: '' for a domain that has no ASCII form.
  const orEmpty = (fn) => (domain) => {
    const r = fn(`${domain}`);
    return r === FAILURE || regExpTest(forbiddenHostRe, r) ? '' : r;
  };
  return freeze({ tick, cancel, runTicks, nextTick, nodeError, describeReceived, isArrayBuffer,
    isDataView, isUint8Array, domainToASCII: orEmpty(domainToASCII),
    domainToUnicode: orEmpty(domainToUnicode) });
})();
