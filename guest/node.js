// capsa guest runtime: the global `process` and the Node.js modules that code written
// for Node reaches for: events, util, path, url, querystring, string_decoder, assert,
// timers, timers/promises and console. Evaluated once per context as a global script,
// after buffer.js and before fs.js; its completion value { modules, path, ... } gives
// fs.js the modules that require() and import name (fs.js adds fs and buffer), the path
// and file URL functions it shares, and the run's script path (for require's errors).
// Nothing here reaches the host but through the natives of __capsaNode (guest/node.c:
// the arguments and environment the host gave, the run's exit, memory usage, a
// monotonic clock) and __capsa.write (stdout and stderr).
//
// Behaviour follows Node.js v20 (messages, error codes, inspect output), checked against
// Node's own output by tests/js/node. Where it differs:
// - process: argv is [execPath, the script (/workspace/NAME), ...the host's arguments];
//   execPath '/usr/bin/capsa', argv0 'capsa', title 'capsa', pid 1, ppid 0, platform
//   'linux' and arch 'wasm32' whatever the host runs; versions names the Node API level
//   followed ('20.0.0') and the engine; env holds only what the host gave
//   (capsa_set_env), nothing of the host's own; cwd() is /workspace and chdir() throws.
//   hrtime() and uptime() count from the sandbox's start. exit() ends the run (no
//   'exit' event is emitted; process emits no events of its own). process.stdin is
//   fs.js's. No kill, getuid and the like; memoryUsage() measures the guest's memory.
// - process.stdout and process.stderr are event emitters with write() (strings, Buffers,
//   Uint8Arrays as UTF-8), end(), isTTY false, not streams.
// - util.types cannot tell a Proxy (isProxy is always false); util.inspect of a Proxy
//   shows its target through its traps. No util.MIMEType, parseArgs, parseEnv,
//   styleText, getSystemErrorMap, transferableAbort*.
// - path is POSIX only: path.win32 and path.matchesGlob are not here.
// - assert's messages for ok() and an assert() without a message say
//   "The expression evaluated to a falsy value" without the source text of the call
//   (the sandbox does not read its scripts' sources back). No CallTracker.
// - events: no EventEmitterAsyncResource, addAbortListener, captureRejections.
// - "use strip": their functions show in stack traces as "(native)", where Node shows
//   its internal files; assert's errors start their stack at the caller.

(function () {
  'use strict';
  'use strip';

  // ---------------------------------------------------------------------------
  // Host bridge
  // ---------------------------------------------------------------------------

  const host = globalThis.__capsaNode;
  delete globalThis.__capsaNode;
  const {
    write: hostWrite, args: hostArgs, env: hostEnv, runId: hostRunId, exit: hostExit,
    setExitCode: hostSetExitCode, exitCode: hostExitCode, memoryUsage: hostMemoryUsage,
    hrtime: hostHrtime, script: hostScript,
  } = host;
  const { inspect, format, formatWithOptions, types: inspectTypes } = host.runtime;
  const { nodeError, describeReceived, nextTick } = host.web;
  const { Buffer, outOfRange } = host.buffer;

  // ---------------------------------------------------------------------------
  // Intrinsics, captured before user code can replace them
  // ---------------------------------------------------------------------------

  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const {
    defineProperty, defineProperties, freeze, keys: objectKeys, getPrototypeOf,
    setPrototypeOf, getOwnPropertyNames, getOwnPropertySymbols, getOwnPropertyDescriptor,
    create: objectCreate, is: objectIs, assign: objectAssign,
  } = Object;
  const reflectApply = Reflect.apply;
  const reflectOwnKeys = Reflect.ownKeys;
  const hasOwn = uncurry(Object.prototype.hasOwnProperty);
  const propertyIsEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
  const objectToString = uncurry(Object.prototype.toString);
  const isArray = Array.isArray;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const URIErrorCtor = URIError;
  const PromiseCtor = Promise;
  const promiseThen = uncurry(Promise.prototype.then);
  const SymbolCtor = Symbol;
  const MapCtor = Map;
  const SetCtor = Set;
  const mapGet = uncurry(Map.prototype.get);
  const mapSet = uncurry(Map.prototype.set);
  const mapHas = uncurry(Map.prototype.has);
  const mapDelete = uncurry(Map.prototype.delete);
  const setAdd = uncurry(Set.prototype.add);
  const setHas = uncurry(Set.prototype.has);
  const setDelete = uncurry(Set.prototype.delete);
  const mapSizeOf = uncurry(getOwnPropertyDescriptor(Map.prototype, 'size').get);
  const setSizeOf = uncurry(getOwnPropertyDescriptor(Set.prototype, 'size').get);
  const mapEntries = uncurry(Map.prototype.entries);
  const setValues = uncurry(Set.prototype.values);
  const iteratorNext = (it) => it.next();
  const numberIsInteger = Number.isInteger;
  const numberIsSafeInteger = Number.isSafeInteger;
  const numberIsNaN = Number.isNaN;
  const numberIsFinite = Number.isFinite;
  const mathFloor = Math.floor;
  const mathMin = Math.min;
  const mathMax = Math.max;
  const StringCtor = String;
  const stringFromCharCode = String.fromCharCode;
  const stringCharCodeAt = uncurry(String.prototype.charCodeAt);
  const stringCodePointAt = uncurry(String.prototype.codePointAt);
  const stringSlice = uncurry(String.prototype.slice);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const stringLastIndexOf = uncurry(String.prototype.lastIndexOf);
  const stringIncludes = uncurry(String.prototype.includes);
  const stringStartsWith = uncurry(String.prototype.startsWith);
  const stringEndsWith = uncurry(String.prototype.endsWith);
  const stringToLowerCase = uncurry(String.prototype.toLowerCase);
  const stringToUpperCase = uncurry(String.prototype.toUpperCase);
  const stringReplace = uncurry(String.prototype.replace);
  const stringSplit = uncurry(String.prototype.split);
  const stringRepeat = uncurry(String.prototype.repeat);
  const stringTrim = uncurry(String.prototype.trim);
  const stringPadStart = uncurry(String.prototype.padStart);
  const stringToWellFormed = uncurry(String.prototype.toWellFormed);
  const arrayPush = uncurry(Array.prototype.push);
  const arrayPop = uncurry(Array.prototype.pop);
  const arrayShift = uncurry(Array.prototype.shift);
  const arrayUnshift = uncurry(Array.prototype.unshift);
  const arraySlice = uncurry(Array.prototype.slice);
  const arraySplice = uncurry(Array.prototype.splice);
  const arrayJoin = uncurry(Array.prototype.join);
  const arrayIndexOf = uncurry(Array.prototype.indexOf);
  const arrayIncludes = uncurry(Array.prototype.includes);
  const arrayConcat = uncurry(Array.prototype.concat);
  const arraySort = uncurry(Array.prototype.sort);
  const regExpTest = uncurry(RegExp.prototype.test);
  const regExpExec = uncurry(RegExp.prototype.exec);
  const functionToString = uncurry(Function.prototype.toString);
  const BigIntCtor = BigInt;
  const setTimeoutFn = setTimeout;
  const setImmediateFn = setImmediate;
  const setIntervalFn = setInterval;
  const clearTimeoutFn = clearTimeout;
  const clearImmediateFn = clearImmediate;
  const clearIntervalFn = clearInterval;
  const performanceNow = performance.now.bind(performance);
  const TextEncoderCtor = TextEncoder;
  const TextDecoderCtor = TextDecoder;
  const URLCtor = URL;
  const URLSearchParamsCtor = URLSearchParams;
  const encodeURIComponentFn = encodeURIComponent;
  const decodeURIComponentFn = decodeURIComponent;
  const consoleObject = console;

  // A function named `name` (object literal methods carry their key as name).
  const named = (name, fn) => defineProperty(fn, 'name', { value: name });
  // A data property as Node's modules have them: writable, enumerable, configurable.
  const hidden = (value) => ({ value, writable: true, enumerable: false, configurable: true });

  // ---------------------------------------------------------------------------
  // Errors and validators (Node's messages)
  // ---------------------------------------------------------------------------

  const invalidArgType = (name, expected, value) => nodeError(TypeErrorCtor,
    'ERR_INVALID_ARG_TYPE', `The "${name}" ${stringIncludes(name, '.') ? 'property' : 'argument'} ` +
    `must be ${expected}.${describeReceived(value)}`);

  function invalidArgValue(name, value, reason = 'is invalid') {
    let shown = inspect(value);
    if (shown.length > 128) shown = `${stringSlice(shown, 0, 128)}...`;
    const type = stringIncludes(name, '.') ? 'property' : 'argument';
    return nodeError(TypeErrorCtor, 'ERR_INVALID_ARG_VALUE',
      `The ${type} '${name}' ${reason}. Received ${shown}`);
  }

  function validateString(value, name) {
    if (typeof value !== 'string') throw invalidArgType(name, 'of type string', value);
  }

  function validateFunction(value, name) {
    if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value);
  }

  function validateObject(value, name, allowArray = false) {
    if (value === null || (!allowArray && isArray(value)) || typeof value !== 'object') {
      throw invalidArgType(name, 'of type object', value);
    }
  }

  function validateNumber(value, name, min = undefined, max) {
    if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
    if ((min != null && value < min) || (max != null && value > max) ||
        ((min != null || max != null) && numberIsNaN(value))) {
      throw outOfRange(name, `${min != null ? `>= ${min}` : ''}${
        min != null && max != null ? ' && ' : ''}${max != null ? `<= ${max}` : ''}`, value);
    }
  }

  function validateInteger(value, name, min = Number.MIN_SAFE_INTEGER,
    max = Number.MAX_SAFE_INTEGER) {
    if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
    if (!numberIsInteger(value)) throw outOfRange(name, 'an integer', value);
    if (value < min || value > max) throw outOfRange(name, `>= ${min} && <= ${max}`, value);
  }

  function validateBoolean(value, name) {
    if (typeof value !== 'boolean') throw invalidArgType(name, 'of type boolean', value);
  }

  // Writes a warning to stderr as the runtime's other warnings are ("Name: message",
  // "[CODE] Name: message"), without Node's "(node:PID)" prefix.
  function writeWarning(name, message, code) {
    hostWrite(2, `${code === undefined ? '' : `[${code}] `}${name}: ${message}\n`);
  }

  // The stack of an error made here, starting at the first frame that is not one of
  // this file's (they show as "(native)"), as Error.captureStackTrace(err, fn) leaves it.
  function trimInternalFrames(err) {
    const stack = err.stack;
    if (typeof stack !== 'string') return;
    const lines = stringSplit(stack, '\n');
    let first = 1;
    while (first < lines.length && stringEndsWith(lines[first], '(native)')) first++;
    if (first === 1) return;
    const kept = arrayConcat([lines[0]], arraySlice(lines, first));
    defineProperty(err, 'stack', hidden(arrayJoin(kept, '\n')));
  }

  // ---------------------------------------------------------------------------
  // events
  // ---------------------------------------------------------------------------

  const kCapture = SymbolCtor('kCapture');
  const kShapeMode = SymbolCtor('shapeMode');
  const kErrorMonitor = SymbolCtor('events.errorMonitor');
  const kRejection = SymbolCtor.for('nodejs.rejection');
  let defaultMaxListeners = 10;

  // A function, not a class: code written for Node calls EventEmitter.call(this).
  function EventEmitter(opts) {
    reflectApply(EventEmitter.init, this, [opts]);
  }

  EventEmitter.prototype._events = undefined;
  EventEmitter.prototype._eventsCount = 0;
  EventEmitter.prototype._maxListeners = undefined;
  defineProperty(EventEmitter.prototype, kCapture, hidden(false));

  const eventInit = function init(opts) {
    if (this._events === undefined || this._events === getPrototypeOf(this)._events) {
      this._events = { __proto__: null };
      this._eventsCount = 0;
      this[kShapeMode] = false;
    } else {
      this[kShapeMode] = true;
    }
    this._maxListeners = this._maxListeners || undefined;
    if (opts?.captureRejections) {
      validateBoolean(opts.captureRejections, 'options.captureRejections');
      this[kCapture] = Boolean(opts.captureRejections);
    } else {
      this[kCapture] = EventEmitter.prototype[kCapture];
    }
  };

  function checkListener(listener) {
    validateFunction(listener, 'listener');
  }

  function getMaxListeners(that) {
    return that._maxListeners === undefined ? defaultMaxListeners : that._maxListeners;
  }

  // With captureRejections, a listener's rejected promise is the emitter's error.
  function addCatch(that, promise, type, args) {
    if (!that[kCapture]) return;
    try {
      const then = promise.then;
      if (typeof then === 'function') {
        reflectApply(then, promise, [undefined, (err) => {
          nextTick(emitUnhandledRejectionOrErr, that, err, type, args);
        }]);
      }
    } catch (err) {
      that.emit('error', err);
    }
  }

  function emitUnhandledRejectionOrErr(ee, err, type, args) {
    if (typeof ee[kRejection] === 'function') {
      reflectApply(ee[kRejection], ee, [err, type, ...args]);
    } else {
      const prev = ee[kCapture];
      try {
        ee[kCapture] = false;
        ee.emit('error', err);
      } finally {
        ee[kCapture] = prev;
      }
    }
  }

  const eventMethods = {
    setMaxListeners(n) {
      validateNumber(n, 'setMaxListeners', 0);
      this._maxListeners = n;
      return this;
    },
    getMaxListeners() {
      return getMaxListeners(this);
    },
    emit(type, ...args) {
      let doError = type === 'error';
      const events = this._events;
      if (events !== undefined) {
        if (doError && events[kErrorMonitor] !== undefined) this.emit(kErrorMonitor, ...args);
        doError = doError && events.error === undefined;
      } else if (!doError) {
        return false;
      }
      if (doError) {
        const er = args.length > 0 ? args[0] : undefined;
        if (er instanceof ErrorCtor) throw er; // Unhandled 'error' event
        let shown;
        try {
          shown = inspect(er);
        } catch {
          shown = er;
        }
        const err = nodeError(ErrorCtor, 'ERR_UNHANDLED_ERROR', `Unhandled error. (${shown})`);
        err.context = er;
        throw err; // Unhandled 'error' event
      }
      const handler = events[type];
      if (handler === undefined) return false;
      if (typeof handler === 'function') {
        const result = reflectApply(handler, this, args);
        if (result !== undefined && result !== null) addCatch(this, result, type, args);
      } else {
        const listeners = arraySlice(handler);
        for (let i = 0; i < listeners.length; ++i) {
          const result = reflectApply(listeners[i], this, args);
          if (result !== undefined && result !== null) addCatch(this, result, type, args);
        }
      }
      return true;
    },
    addListener(type, listener) {
      return addListener(this, type, listener, false);
    },
    prependListener(type, listener) {
      return addListener(this, type, listener, true);
    },
    once(type, listener) {
      checkListener(listener);
      this.on(type, onceWrap(this, type, listener));
      return this;
    },
    prependOnceListener(type, listener) {
      checkListener(listener);
      this.prependListener(type, onceWrap(this, type, listener));
      return this;
    },
    removeListener(type, listener) {
      checkListener(listener);
      const events = this._events;
      if (events === undefined) return this;
      const list = events[type];
      if (list === undefined) return this;
      if (list === listener || list.listener === listener) {
        this._eventsCount -= 1;
        if (this[kShapeMode]) {
          events[type] = undefined;
        } else if (this._eventsCount === 0) {
          this._events = { __proto__: null };
        } else {
          delete events[type];
          if (events.removeListener) this.emit('removeListener', type, list.listener || listener);
        }
      } else if (typeof list !== 'function') {
        let position = -1;
        for (let i = list.length - 1; i >= 0; i--) {
          if (list[i] === listener || list[i].listener === listener) {
            position = i;
            break;
          }
        }
        if (position < 0) return this;
        if (position === 0) arrayShift(list);
        else arraySplice(list, position, 1);
        if (list.length === 1) events[type] = list[0];
        if (events.removeListener !== undefined) this.emit('removeListener', type, listener);
      }
      return this;
    },
    removeAllListeners(type) {
      const events = this._events;
      if (events === undefined) return this;
      if (events.removeListener === undefined) {
        if (arguments.length === 0) {
          this._events = { __proto__: null };
          this._eventsCount = 0;
        } else if (events[type] !== undefined) {
          if (--this._eventsCount === 0) this._events = { __proto__: null };
          else delete events[type];
        }
        this[kShapeMode] = false;
        return this;
      }
      if (arguments.length === 0) {
        const names = reflectOwnKeys(events);
        for (let i = 0; i < names.length; i++) {
          if (names[i] !== 'removeListener') this.removeAllListeners(names[i]);
        }
        this.removeAllListeners('removeListener');
        this._events = { __proto__: null };
        this._eventsCount = 0;
        this[kShapeMode] = false;
        return this;
      }
      const listeners = events[type];
      if (typeof listeners === 'function') {
        this.removeListener(type, listeners);
      } else if (listeners !== undefined) {
        for (let i = listeners.length - 1; i >= 0; i--) this.removeListener(type, listeners[i]);
      }
      return this;
    },
    listeners(type) {
      return listenersOf(this, type, true);
    },
    rawListeners(type) {
      return listenersOf(this, type, false);
    },
    listenerCount(type, listener) {
      const events = this._events;
      if (events === undefined) return 0;
      const list = events[type];
      if (typeof list === 'function') {
        if (listener != null) return listener === list || listener === list.listener ? 1 : 0;
        return 1;
      }
      if (list === undefined) return 0;
      if (listener == null) return list.length;
      let matching = 0;
      for (let i = 0; i < list.length; i++) {
        if (list[i] === listener || list[i].listener === listener) matching++;
      }
      return matching;
    },
    eventNames() {
      return this._eventsCount > 0 ? reflectOwnKeys(this._events) : [];
    },
  };
  const eventMethodOrder = ['setMaxListeners', 'getMaxListeners', 'emit', 'addListener', 'on',
    'prependListener', 'once', 'prependOnceListener', 'removeListener', 'off',
    'removeAllListeners', 'listeners', 'rawListeners', 'listenerCount', 'eventNames'];
  eventMethods.on = eventMethods.addListener;
  eventMethods.off = eventMethods.removeListener;
  for (let i = 0; i < eventMethodOrder.length; i++) {
    defineProperty(EventEmitter.prototype, eventMethodOrder[i], {
      value: eventMethods[eventMethodOrder[i]], writable: true, enumerable: true,
      configurable: true,
    });
  }

  function addListener(target, type, listener, prepend) {
    checkListener(listener);
    let events = target._events;
    let existing;
    if (events === undefined) {
      events = target._events = { __proto__: null };
      target._eventsCount = 0;
    } else {
      if (events.newListener !== undefined) {
        target.emit('newListener', type, listener.listener ?? listener);
        events = target._events;
      }
      existing = events[type];
    }
    if (existing === undefined) {
      events[type] = listener;
      ++target._eventsCount;
      return target;
    }
    if (typeof existing === 'function') {
      existing = events[type] = prepend ? [listener, existing] : [existing, listener];
    } else if (prepend) {
      arrayUnshift(existing, listener);
    } else {
      arrayPush(existing, listener);
    }
    const m = getMaxListeners(target);
    if (m > 0 && existing.length > m && !existing.warned) {
      existing.warned = true;
      const w = new ErrorCtor('Possible EventEmitter memory leak detected. ' +
        `${existing.length} ${StringCtor(type)} listeners added to ` +
        `${inspect(target, { depth: -1 })}. MaxListeners is ${m}. Use ` +
        'emitter.setMaxListeners() to increase limit');
      w.name = 'MaxListenersExceededWarning';
      w.emitter = target;
      w.type = type;
      w.count = existing.length;
      emitWarning(w);
    }
    return target;
  }

  function onceWrapper(...args) {
    if (!this.fired) {
      this.target.removeListener(this.type, this.wrapFn);
      this.fired = true;
      return reflectApply(this.listener, this.target, args);
    }
    return undefined;
  }

  function onceWrap(target, type, listener) {
    const state = { fired: false, wrapFn: undefined, target, type, listener };
    const wrapped = onceWrapper.bind(state);
    wrapped.listener = listener;
    state.wrapFn = wrapped;
    return wrapped;
  }

  function listenersOf(target, type, unwrap) {
    const events = target._events;
    if (events === undefined) return [];
    const list = events[type];
    if (list === undefined) return [];
    if (typeof list === 'function') return unwrap ? [list.listener || list] : [list];
    const copy = arraySlice(list);
    if (unwrap) {
      for (let i = 0; i < copy.length; i++) copy[i] = copy[i].listener || copy[i];
    }
    return copy;
  }

  // events.once(emitter, name): a promise of the arguments of the next `name` event,
  // rejected by an 'error' event first.
  function once(emitter, name, options = {}) {
    validateObject(options, 'options');
    return new PromiseCtor((resolve, reject) => {
      const errorListener = (err) => {
        emitter.removeListener(name, resolver);
        reject(err);
      };
      const resolver = (...args) => {
        if (typeof emitter.removeListener === 'function') {
          emitter.removeListener('error', errorListener);
        }
        resolve(args);
      };
      listenOnce(emitter, name, resolver);
      if (name !== 'error' && typeof emitter.once === 'function') {
        emitter.once('error', errorListener);
      }
    });
  }

  function listenOnce(emitter, name, listener) {
    if (typeof emitter.once === 'function') {
      emitter.once(name, listener);
    } else if (typeof emitter.addEventListener === 'function') {
      emitter.addEventListener(name, listener, { once: true });
    } else {
      throw invalidArgType('emitter', 'an instance of EventEmitter or EventTarget', emitter);
    }
  }

  // events.on(emitter, name): an async iterator of the arguments of each `name` event;
  // an 'error' event rejects it.
  function on(emitter, event, options = {}) {
    validateObject(options, 'options');
    const unconsumedEvents = [];
    const unconsumedPromises = [];
    let error = null;
    let finished = false;
    const iterator = setPrototypeOf({
      next() {
        const value = arrayShift(unconsumedEvents);
        if (value) return PromiseCtor.resolve({ value, done: false });
        if (error) {
          const p = PromiseCtor.reject(error);
          error = null;
          return p;
        }
        if (finished) return PromiseCtor.resolve({ value: undefined, done: true });
        return new PromiseCtor((resolve, reject) => {
          arrayPush(unconsumedPromises, { resolve, reject });
        });
      },
      return() {
        emitter.removeListener(event, eventHandler);
        emitter.removeListener('error', errorHandler);
        finished = true;
        while (unconsumedPromises.length > 0) {
          arrayShift(unconsumedPromises).resolve({ value: undefined, done: true });
        }
        return PromiseCtor.resolve({ value: undefined, done: true });
      },
      throw(err) {
        if (!err || !(err instanceof ErrorCtor)) {
          throw invalidArgType('EventEmitter.AsyncIterator', 'an instance of Error', err);
        }
        error = err;
        emitter.removeListener(event, eventHandler);
        emitter.removeListener('error', errorHandler);
      },
      [SymbolCtor.asyncIterator]() {
        return this;
      },
    }, getPrototypeOf(getPrototypeOf(async function* () {}).prototype));
    emitter.on(event, eventHandler);
    if (event !== 'error') emitter.on('error', errorHandler);
    return iterator;

    function eventHandler(...args) {
      const promise = arrayShift(unconsumedPromises);
      if (promise) promise.resolve({ value: args, done: false });
      else arrayPush(unconsumedEvents, args);
    }

    function errorHandler(err) {
      finished = true;
      const toError = arrayShift(unconsumedPromises);
      if (toError) toError.reject(err);
      else error = err;
      iterator.return();
    }
  }

  function getEventListeners(emitterOrTarget, type) {
    if (typeof emitterOrTarget.listeners === 'function') return emitterOrTarget.listeners(type);
    throw invalidArgType('emitter', 'an instance of EventEmitter or EventTarget', emitterOrTarget);
  }

  const eventStatics = {
    once, on, getEventListeners,
    getMaxListeners(emitterOrTarget) {
      if (typeof emitterOrTarget?.getMaxListeners === 'function') {
        return getMaxListeners(emitterOrTarget);
      }
      throw invalidArgType('emitter', 'an instance of EventEmitter or EventTarget',
        emitterOrTarget);
    },
    EventEmitter, usingDomains: false, captureRejectionSymbol: kRejection,
  };
  for (const name of objectKeys(eventStatics)) {
    defineProperty(EventEmitter, name, {
      value: eventStatics[name], writable: true, enumerable: true, configurable: true,
    });
  }
  defineProperty(EventEmitter, 'captureRejections', {
    get: named('get', () => EventEmitter.prototype[kCapture]),
    set: named('set', (value) => {
      validateBoolean(value, 'EventEmitter.captureRejections');
      EventEmitter.prototype[kCapture] = value;
    }),
    enumerable: true, configurable: true,
  });
  defineProperty(EventEmitter, 'errorMonitor', {
    value: kErrorMonitor, writable: false, enumerable: true, configurable: false,
  });
  defineProperty(EventEmitter, 'defaultMaxListeners', {
    get: named('get', () => defaultMaxListeners),
    set: named('set', (arg) => {
      if (typeof arg !== 'number' || arg < 0 || numberIsNaN(arg)) {
        throw outOfRange('defaultMaxListeners', 'a non-negative number', arg);
      }
      defaultMaxListeners = arg;
    }),
    enumerable: true, configurable: true,
  });
  const eventStatics2 = {
    setMaxListeners(n = defaultMaxListeners, ...eventTargets) {
      validateNumber(n, 'setMaxListeners', 0);
      if (eventTargets.length === 0) {
        defaultMaxListeners = n;
        return;
      }
      for (let i = 0; i < eventTargets.length; i++) {
        const target = eventTargets[i];
        if (typeof target?.setMaxListeners === 'function') target.setMaxListeners(n);
        else throw invalidArgType('eventTargets', 'an instance of EventEmitter or EventTarget', target);
      }
    },
    init: eventInit,
    listenerCount(emitter, type) {
      if (typeof emitter.listenerCount === 'function') return emitter.listenerCount(type);
      return reflectApply(eventMethods.listenerCount, emitter, [type]);
    },
  };
  for (const name of objectKeys(eventStatics2)) {
    defineProperty(EventEmitter, name, {
      value: eventStatics2[name], writable: true, enumerable: true, configurable: true,
    });
  }

  // ---------------------------------------------------------------------------
  // process.emitWarning (used by events and util too)
  // ---------------------------------------------------------------------------

  // process.emitWarning(warning[, type[, code]][, ctor]) or (warning, { type, code,
  // detail }): writes "[code] Type: message" (and the detail) to stderr, and emits
  // 'warning' on process.
  function emitWarning(warning, type, code, ctor) {
    let detail;
    if (type !== null && typeof type === 'object' && !isArray(type)) {
      ctor = type.ctor;
      code = type.code;
      if (typeof type.detail === 'string') detail = type.detail;
      type = type.type || 'Warning';
    } else if (typeof type === 'function') {
      ctor = type;
      code = undefined;
      type = 'Warning';
    }
    if (type !== undefined) validateString(type, 'type');
    if (typeof code === 'function') {
      ctor = code;
      code = undefined;
    } else if (code !== undefined) {
      validateString(code, 'code');
    }
    if (typeof warning === 'string') {
      const w = new ErrorCtor(warning);
      w.name = StringCtor(type || 'Warning');
      if (code !== undefined) w.code = code;
      if (detail !== undefined) w.detail = detail;
      warning = w;
    } else if (!(warning instanceof ErrorCtor)) {
      throw invalidArgType('warning', 'of type string or an instance of Error', warning);
    }
    if (warning.name === 'DeprecationWarning' && process.noDeprecation) return;
    let text = `${warning.code === undefined ? '' : `[${warning.code}] `}${warning.name}: ` +
      `${warning.message}`;
    if (typeof warning.detail === 'string') text += `\n${warning.detail}`;
    nextTick(() => {
      if (process.listenerCount('warning') > 0) process.emit('warning', warning);
      hostWrite(2, `${text}\n`);
    });
  }

  // ---------------------------------------------------------------------------
  // util
  // ---------------------------------------------------------------------------

  const kPromisifyCustom = SymbolCtor.for('nodejs.util.promisify.custom');
  const kCustomPromisifyArgs = SymbolCtor('customPromisifyArgs');

  function promisify(original) {
    validateFunction(original, 'original');
    if (original[kPromisifyCustom]) {
      const fn = original[kPromisifyCustom];
      validateFunction(fn, 'util.promisify.custom');
      return defineProperty(fn, kPromisifyCustom, {
        value: fn, enumerable: false, writable: false, configurable: true,
      });
    }
    const argumentNames = original[kCustomPromisifyArgs];
    function fn(...args) {
      return new PromiseCtor((resolve, reject) => {
        arrayPush(args, (err, ...values) => {
          if (err) return reject(err);
          if (argumentNames !== undefined && values.length > 1) {
            const obj = {};
            for (let i = 0; i < argumentNames.length; i++) obj[argumentNames[i]] = values[i];
            resolve(obj);
          } else {
            resolve(values[0]);
          }
          return undefined;
        });
        reflectApply(original, this, args);
      });
    }
    setPrototypeOf(fn, getPrototypeOf(original));
    defineProperty(fn, kPromisifyCustom, {
      value: fn, enumerable: false, writable: false, configurable: true,
    });
    const descriptors = {};
    for (const key of reflectOwnKeys(original)) {
      descriptors[key] = getOwnPropertyDescriptor(original, key);
    }
    return defineProperties(fn, descriptors);
  }
  promisify.custom = kPromisifyCustom;

  function callbackifyOnRejected(reason, cb) {
    if (!reason) {
      const err = nodeError(ErrorCtor, 'ERR_FALSY_VALUE_REJECTION',
        'Promise was rejected with falsy value');
      err.reason = reason;
      reason = err;
    }
    return cb(reason);
  }

  function callbackify(original) {
    validateFunction(original, 'original');
    function callbackified(...args) {
      const maybeCb = arrayPop(args);
      validateFunction(maybeCb, 'last argument');
      const cb = maybeCb.bind(this);
      promiseThen(reflectApply(original, this, args),
        (ret) => { nextTick(cb, null, ret); },
        (rej) => { nextTick(callbackifyOnRejected, rej, cb); });
    }
    const descriptors = {};
    for (const key of reflectOwnKeys(original)) {
      descriptors[key] = getOwnPropertyDescriptor(original, key);
    }
    const length = typeof descriptors.length?.value === 'number' ? descriptors.length.value : 0;
    descriptors.length = { value: length + 1, writable: false, enumerable: false, configurable: true };
    defineProperties(callbackified, descriptors);
    return callbackified;
  }

  function inherits(ctor, superCtor) {
    if (ctor === undefined || ctor === null) {
      throw invalidArgType('ctor', 'of type function', ctor);
    }
    if (superCtor === undefined || superCtor === null) {
      throw invalidArgType('superCtor', 'of type function', superCtor);
    }
    if (superCtor.prototype === undefined) {
      throw invalidArgType('superCtor.prototype', 'of type object', superCtor.prototype);
    }
    defineProperty(ctor, 'super_', {
      value: superCtor, writable: true, configurable: true, enumerable: false,
    });
    setPrototypeOf(ctor.prototype, superCtor.prototype);
  }

  const deprecationsWarned = new SetCtor();
  function deprecate(fn, msg, code) {
    validateFunction(fn, 'fn');
    if (code !== undefined) validateString(code, 'code');
    let warned = false;
    function deprecated(...args) {
      if (!warned && !process.noDeprecation) {
        warned = true;
        if (code === undefined || !setHas(deprecationsWarned, code)) {
          if (code !== undefined) setAdd(deprecationsWarned, code);
          emitWarning(msg, 'DeprecationWarning', code);
        }
      }
      if (new.target) return Reflect.construct(fn, args, new.target);
      return reflectApply(fn, this, args);
    }
    setPrototypeOf(deprecated, fn);
    if (fn.prototype) deprecated.prototype = fn.prototype;
    return deprecated;
  }

  const ansiRe = new RegExp('[\\u001B\\u009B][[\\]()#;?]*' +
    '(?:(?:(?:(?:;[-a-zA-Z\\d\\/\\#&.:=?%@~_]+)*' +
    '|[a-zA-Z\\d]+(?:;[-a-zA-Z\\d\\/\\#&.:=?%@~_]*)*)?' +
    '(?:\\u0007|\\u001B\\u005C|\\u009C))' +
    '|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PR-TZcf-ntqry=><~]))', 'g');

  function stripVTControlCharacters(str) {
    validateString(str, 'str');
    return stringReplace(str, ansiRe, '');
  }

  function toUSVString(input) {
    return stringToWellFormed(`${input}`);
  }

  // util.debuglog(section): a logger that writes "SECTION 1: message" to stderr when
  // process.env.NODE_DEBUG names the section (read on its first call).
  function debuglog(section, cb) {
    let enabled;
    let test = () => {
      const names = stringSplit(stringToUpperCase(`${process.env.NODE_DEBUG || ''}`), /[\s,]+/);
      enabled = arrayIncludes(names, stringToUpperCase(section)) || arrayIncludes(names, '*');
      test = () => enabled;
      if (typeof cb === 'function') cb(logger);
      return enabled;
    };
    function logger(...args) {
      if (test()) {
        hostWrite(2, `${stringToUpperCase(section)} ${process.pid}: ${reflectApply(format, undefined, args)}\n`);
      }
    }
    defineProperty(logger, 'enabled', {
      get() { return test(); }, configurable: true, enumerable: true,
    });
    return logger;
  }

  const {
    isMap, isSet, isWeakMap, isWeakSet, isDate, isDataView, isArrayBuffer,
    isSharedArrayBuffer, isRegExp, isArgumentsObject, isMapIterator, isSetIterator,
    isPromise, isTypedArray, isAsyncFunction, isGeneratorFunction, boxedPrimitive,
    typedArrayTag,
  } = inspectTypes;
  const builtinTag = (v) => stringSlice(objectToString(v), 8, -1);
  const boxedIs = (type) => (v) => {
    if (v === null || typeof v !== 'object') return false;
    const boxed = boxedPrimitive(v);
    return boxed !== undefined && boxed[0] === type;
  };
  const typedIs = (tag) => (v) => typedArrayTag(v) === tag;
  const objectOnly = (check) => (v) => v !== null && typeof v === 'object' && check(v);
  // Errors made by the engine's constructors (and subclasses); an object that claims
  // the tag with Symbol.toStringTag passes too.
  const isNativeError = (v) => builtinTag(v) === 'Error';
  const types = {
    isExternal: () => false,
    isDate: objectOnly(isDate),
    isArgumentsObject: objectOnly(isArgumentsObject),
    isBigIntObject: boxedIs('BigInt'),
    isBooleanObject: boxedIs('Boolean'),
    isNumberObject: boxedIs('Number'),
    isStringObject: boxedIs('String'),
    isSymbolObject: boxedIs('Symbol'),
    isNativeError: objectOnly(isNativeError),
    isRegExp: objectOnly(isRegExp),
    isAsyncFunction: (v) => typeof v === 'function' && isAsyncFunction(v),
    isGeneratorFunction: (v) => typeof v === 'function' && isGeneratorFunction(v),
    isGeneratorObject: objectOnly((v) => builtinTag(v) === 'Generator' ||
      builtinTag(v) === 'AsyncGenerator'),
    isPromise: objectOnly(isPromise),
    isMap: objectOnly(isMap),
    isSet: objectOnly(isSet),
    isMapIterator: objectOnly(isMapIterator),
    isSetIterator: objectOnly(isSetIterator),
    isWeakMap: objectOnly(isWeakMap),
    isWeakSet: objectOnly(isWeakSet),
    isArrayBuffer: objectOnly(isArrayBuffer),
    isDataView: objectOnly(isDataView),
    isSharedArrayBuffer: objectOnly(isSharedArrayBuffer),
    isProxy: () => false,
    isModuleNamespaceObject: objectOnly((v) => builtinTag(v) === 'Module' &&
      getPrototypeOf(v) === null),
    isAnyArrayBuffer: objectOnly((v) => isArrayBuffer(v) || isSharedArrayBuffer(v)),
    isBoxedPrimitive: objectOnly((v) => boxedPrimitive(v) !== undefined),
    isArrayBufferView: ArrayBuffer.isView,
    isTypedArray: objectOnly(isTypedArray),
    isUint8Array: typedIs('Uint8Array'),
    isUint8ClampedArray: typedIs('Uint8ClampedArray'),
    isUint16Array: typedIs('Uint16Array'),
    isUint32Array: typedIs('Uint32Array'),
    isInt8Array: typedIs('Int8Array'),
    isInt16Array: typedIs('Int16Array'),
    isInt32Array: typedIs('Int32Array'),
    isFloat32Array: typedIs('Float32Array'),
    isFloat64Array: typedIs('Float64Array'),
    isBigInt64Array: typedIs('BigInt64Array'),
    isBigUint64Array: typedIs('BigUint64Array'),
    isKeyObject: () => false,
    isCryptoKey: () => false,
  };
  for (const name of objectKeys(types)) named(name, types[name]);

  // The deprecated type checks util still has.
  const isPrimitive = (arg) => arg === null || (typeof arg !== 'object' && typeof arg !== 'function');
  const legacyChecks = {
    isArray,
    isBoolean: (arg) => typeof arg === 'boolean',
    isBuffer: Buffer.isBuffer,
    isNull: (arg) => arg === null,
    isNullOrUndefined: (arg) => arg === null || arg === undefined,
    isNumber: (arg) => typeof arg === 'number',
    isString: (arg) => typeof arg === 'string',
    isSymbol: (arg) => typeof arg === 'symbol',
    isUndefined: (arg) => arg === undefined,
    isRegExp: types.isRegExp,
    isObject: (arg) => arg !== null && typeof arg === 'object',
    isDate: types.isDate,
    isError: (e) => isNativeError(e) || e instanceof ErrorCtor,
    isFunction: (arg) => typeof arg === 'function',
    isPrimitive,
  };

  function utilFormatWithOptions(inspectOptions, ...args) {
    validateObject(inspectOptions, 'inspectOptions', true);
    return formatWithOptions(inspectOptions, args);
  }

  function utilLog(...args) {
    const d = new Date();
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct',
      'Nov', 'Dec'];
    const pad = (n) => stringPadStart(`${n}`, 2, '0');
    const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
    consoleObject.log('%s - %s', `${d.getDate()} ${months[d.getMonth()]} ${time}`,
      reflectApply(format, undefined, args));
  }

  function utilExtend(target, source) {
    if (source === null || typeof source !== 'object') return target;
    const names = objectKeys(source);
    let i = names.length;
    while (i--) target[names[i]] = source[names[i]];
    return target;
  }

  // util is filled in after assert (isDeepStrictEqual) below.
  const util = {
    _extend: utilExtend,
    callbackify,
    debug: debuglog,
    debuglog,
    deprecate,
    format,
    formatWithOptions: utilFormatWithOptions,
    inherits,
    inspect,
  };

  // ---------------------------------------------------------------------------
  // path (POSIX)
  // ---------------------------------------------------------------------------

  const CHAR_DOT = 46;
  const CHAR_SLASH = 47;
  const CWD = '/workspace';

  // Resolves "." and ".." in a path without its root; ".." above the start is kept
  // when allowAboveRoot.
  function normalizeString(path, allowAboveRoot) {
    let res = '';
    let lastSegmentLength = 0;
    let lastSlash = -1;
    let dots = 0;
    let code = 0;
    for (let i = 0; i <= path.length; ++i) {
      if (i < path.length) code = stringCharCodeAt(path, i);
      else if (code === CHAR_SLASH) break;
      else code = CHAR_SLASH;
      if (code === CHAR_SLASH) {
        if (lastSlash === i - 1 || dots === 1) {
          // nothing: an empty or "." segment
        } else if (dots === 2) {
          if (res.length < 2 || lastSegmentLength !== 2 ||
              stringCharCodeAt(res, res.length - 1) !== CHAR_DOT ||
              stringCharCodeAt(res, res.length - 2) !== CHAR_DOT) {
            if (res.length > 2) {
              const lastSlashIndex = stringLastIndexOf(res, '/');
              if (lastSlashIndex === -1) {
                res = '';
                lastSegmentLength = 0;
              } else {
                res = stringSlice(res, 0, lastSlashIndex);
                lastSegmentLength = res.length - 1 - stringLastIndexOf(res, '/');
              }
              lastSlash = i;
              dots = 0;
              continue;
            } else if (res.length !== 0) {
              res = '';
              lastSegmentLength = 0;
              lastSlash = i;
              dots = 0;
              continue;
            }
          }
          if (allowAboveRoot) {
            res += res.length > 0 ? '/..' : '..';
            lastSegmentLength = 2;
          }
        } else {
          if (res.length > 0) res += `/${stringSlice(path, lastSlash + 1, i)}`;
          else res = stringSlice(path, lastSlash + 1, i);
          lastSegmentLength = i - lastSlash - 1;
        }
        lastSlash = i;
        dots = 0;
      } else if (code === CHAR_DOT && dots !== -1) {
        ++dots;
      } else {
        dots = -1;
      }
    }
    return res;
  }

  // The last part of path[start..] as Node's extname and parse find it: where it
  // starts (startPart) and ends (end; -1: there is none), its extension's dot
  // (startDot), and whether it has no extension (no dot, or only a leading one, or
  // the part is "..").
  function scanLastPart(path, start) {
    let startDot = -1;
    let startPart = 0;
    let end = -1;
    let matchedSlash = true;
    let preDotState = 0;
    for (let i = path.length - 1; i >= start; --i) {
      const code = stringCharCodeAt(path, i);
      if (code === CHAR_SLASH) {
        if (!matchedSlash) {
          startPart = i + 1;
          break;
        }
        continue;
      }
      if (end === -1) {
        matchedSlash = false;
        end = i + 1;
      }
      if (code === CHAR_DOT) {
        if (startDot === -1) startDot = i;
        else if (preDotState !== 1) preDotState = 1;
      } else if (startDot !== -1) {
        preDotState = -1;
      }
    }
    const noExt = startDot === -1 || end === -1 || preDotState === 0 ||
      (preDotState === 1 && startDot === end - 1 && startDot === startPart + 1);
    return { startDot, startPart, end, noExt };
  }

  const pathMethods = {
    resolve(...args) {
      let resolvedPath = '';
      let resolvedAbsolute = false;
      for (let i = args.length - 1; i >= -1 && !resolvedAbsolute; i--) {
        const path = i >= 0 ? args[i] : CWD;
        validateString(path, `paths[${i}]`);
        if (path.length === 0) continue;
        resolvedPath = `${path}/${resolvedPath}`;
        resolvedAbsolute = stringCharCodeAt(path, 0) === CHAR_SLASH;
      }
      resolvedPath = normalizeString(resolvedPath, !resolvedAbsolute);
      if (resolvedAbsolute) return `/${resolvedPath}`;
      return resolvedPath.length > 0 ? resolvedPath : '.';
    },
    normalize(path) {
      validateString(path, 'path');
      if (path.length === 0) return '.';
      const isAbsolute = stringCharCodeAt(path, 0) === CHAR_SLASH;
      const trailingSeparator = stringCharCodeAt(path, path.length - 1) === CHAR_SLASH;
      path = normalizeString(path, !isAbsolute);
      if (path.length === 0) {
        if (isAbsolute) return '/';
        return trailingSeparator ? './' : '.';
      }
      if (trailingSeparator) path += '/';
      return isAbsolute ? `/${path}` : path;
    },
    isAbsolute(path) {
      validateString(path, 'path');
      return path.length > 0 && stringCharCodeAt(path, 0) === CHAR_SLASH;
    },
    join(...args) {
      if (args.length === 0) return '.';
      let joined;
      for (let i = 0; i < args.length; ++i) {
        const arg = args[i];
        validateString(arg, 'path');
        if (arg.length > 0) {
          if (joined === undefined) joined = arg;
          else joined += `/${arg}`;
        }
      }
      if (joined === undefined) return '.';
      return path.normalize(joined);
    },
    relative(from, to) {
      validateString(from, 'from');
      validateString(to, 'to');
      if (from === to) return '';
      from = path.resolve(from);
      to = path.resolve(to);
      if (from === to) return '';
      const fromStart = 1;
      const fromEnd = from.length;
      const fromLen = fromEnd - fromStart;
      const toStart = 1;
      const toLen = to.length - toStart;
      const length = fromLen < toLen ? fromLen : toLen;
      let lastCommonSep = -1;
      let i = 0;
      for (; i < length; i++) {
        const fromCode = stringCharCodeAt(from, fromStart + i);
        if (fromCode !== stringCharCodeAt(to, toStart + i)) break;
        else if (fromCode === CHAR_SLASH) lastCommonSep = i;
      }
      if (i === length) {
        if (toLen > length) {
          if (stringCharCodeAt(to, toStart + i) === CHAR_SLASH) {
            return stringSlice(to, toStart + i + 1);
          }
          if (i === 0) return stringSlice(to, toStart + i);
        } else if (fromLen > length) {
          if (stringCharCodeAt(from, fromStart + i) === CHAR_SLASH) lastCommonSep = i;
          else if (i === 0) lastCommonSep = 0;
        }
      }
      let out = '';
      for (i = fromStart + lastCommonSep + 1; i <= fromEnd; ++i) {
        if (i === fromEnd || stringCharCodeAt(from, i) === CHAR_SLASH) {
          out += out.length === 0 ? '..' : '/..';
        }
      }
      return `${out}${stringSlice(to, toStart + lastCommonSep)}`;
    },
    toNamespacedPath(path) {
      return path;
    },
    dirname(path) {
      validateString(path, 'path');
      if (path.length === 0) return '.';
      const hasRoot = stringCharCodeAt(path, 0) === CHAR_SLASH;
      let end = -1;
      let matchedSlash = true;
      for (let i = path.length - 1; i >= 1; --i) {
        if (stringCharCodeAt(path, i) === CHAR_SLASH) {
          if (!matchedSlash) {
            end = i;
            break;
          }
        } else {
          matchedSlash = false;
        }
      }
      if (end === -1) return hasRoot ? '/' : '.';
      if (hasRoot && end === 1) return '//';
      return stringSlice(path, 0, end);
    },
    basename(path, suffix) {
      if (suffix !== undefined) validateString(suffix, 'suffix');
      validateString(path, 'path');
      let start = 0;
      let end = -1;
      let matchedSlash = true;
      if (suffix !== undefined && suffix.length > 0 && suffix.length <= path.length) {
        if (suffix === path) return '';
        let extIdx = suffix.length - 1;
        let firstNonSlashEnd = -1;
        for (let i = path.length - 1; i >= 0; --i) {
          const code = stringCharCodeAt(path, i);
          if (code === CHAR_SLASH) {
            if (!matchedSlash) {
              start = i + 1;
              break;
            }
          } else {
            if (firstNonSlashEnd === -1) {
              matchedSlash = false;
              firstNonSlashEnd = i + 1;
            }
            if (extIdx >= 0) {
              if (code === stringCharCodeAt(suffix, extIdx)) {
                if (--extIdx === -1) end = i;
              } else {
                extIdx = -1;
                end = firstNonSlashEnd;
              }
            }
          }
        }
        if (start === end) end = firstNonSlashEnd;
        else if (end === -1) end = path.length;
        return stringSlice(path, start, end);
      }
      for (let i = path.length - 1; i >= 0; --i) {
        if (stringCharCodeAt(path, i) === CHAR_SLASH) {
          if (!matchedSlash) {
            start = i + 1;
            break;
          }
        } else if (end === -1) {
          matchedSlash = false;
          end = i + 1;
        }
      }
      if (end === -1) return '';
      return stringSlice(path, start, end);
    },
    extname(path) {
      validateString(path, 'path');
      const { startDot, end, noExt } = scanLastPart(path, 0);
      return noExt ? '' : stringSlice(path, startDot, end);
    },
    format(pathObject) {
      validateObject(pathObject, 'pathObject');
      const dir = pathObject.dir || pathObject.root;
      const ext = pathObject.ext ?
        `${stringCharCodeAt(`${pathObject.ext}`, 0) === CHAR_DOT ? '' : '.'}${pathObject.ext}` : '';
      const base = pathObject.base || `${pathObject.name || ''}${ext}`;
      if (!dir) return base;
      return dir === pathObject.root ? `${dir}${base}` : `${dir}/${base}`;
    },
    parse(path) {
      validateString(path, 'path');
      const ret = { root: '', dir: '', base: '', ext: '', name: '' };
      if (path.length === 0) return ret;
      const isAbsolute = stringCharCodeAt(path, 0) === CHAR_SLASH;
      let start;
      if (isAbsolute) {
        ret.root = '/';
        start = 1;
      } else {
        start = 0;
      }
      const { startDot, startPart, end, noExt } = scanLastPart(path, start);
      if (end !== -1) {
        const start2 = startPart === 0 && isAbsolute ? 1 : startPart;
        if (noExt) {
          ret.base = ret.name = stringSlice(path, start2, end);
        } else {
          ret.name = stringSlice(path, start2, startDot);
          ret.base = stringSlice(path, start2, end);
          ret.ext = stringSlice(path, startDot, end);
        }
      }
      if (startPart > 0) ret.dir = stringSlice(path, 0, startPart - 1);
      else if (isAbsolute) ret.dir = '/';
      return ret;
    },
  };

  const path = {};
  for (const name of objectKeys(pathMethods)) {
    path[name] = named(name, pathMethods[name]);
  }
  path.sep = '/';
  path.delimiter = ':';
  path.posix = path;
  path._makeLong = path.toNamespacedPath;

  // ---------------------------------------------------------------------------
  // process
  // ---------------------------------------------------------------------------

  const EXEC_PATH = '/usr/bin/capsa';

  // The process object: an EventEmitter whose constructor is named "process", as Node's.
  const processProto = objectCreate(EventEmitter.prototype, {
    constructor: hidden(named('process', function process() {})),
    [SymbolCtor.toStringTag]: { value: 'process', writable: false, enumerable: false,
      configurable: true },
  });
  const process = objectCreate(processProto);
  reflectApply(eventInit, process, []);

  const sameStrings = (a, b) => {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  };

  // process.argv and process.env are made from what the host gave (WASI's args and
  // environ) when a run first reads them, and made again only when the host gave
  // something else since: a script's own changes to them last as long as that.
  let argvRun = -1;
  let argvRaw = [];
  let argvScript;
  let argvValue;
  function currentArgv() {
    const run = hostRunId();
    if (run !== argvRun) {
      argvRun = run;
      const raw = hostArgs();
      const script = hostScript();
      if (argvValue === undefined || script !== argvScript || !sameStrings(raw, argvRaw)) {
        argvRaw = raw;
        argvScript = script;
        argvValue = arrayConcat([EXEC_PATH, script], arraySlice(raw, 1));
      }
    }
    return argvValue;
  }

  // process.env coerces what is stored in it to strings, as Node's does.
  const envHandler = {
    set(target, key, value) {
      if (typeof key === 'symbol') throw new TypeErrorCtor('Cannot convert a Symbol value to a string');
      target[key] = `${value}`;
      return true;
    },
    defineProperty(target, key, desc) {
      if (typeof key === 'symbol') throw new TypeErrorCtor('Cannot convert a Symbol value to a string');
      if (!('value' in desc) || desc.configurable === false || desc.writable === false ||
          desc.enumerable === false) {
        throw nodeError(TypeErrorCtor, 'ERR_INVALID_OBJECT_DEFINE_PROPERTY',
          '\'process.env\' only accepts a configurable, writable, and enumerable data descriptor');
      }
      target[key] = `${desc.value}`;
      return true;
    },
  };
  let envRun = -1;
  let envRaw = [];
  let envValue;
  function currentEnv() {
    const run = hostRunId();
    if (run !== envRun) {
      envRun = run;
      const raw = hostEnv();
      if (envValue === undefined || !sameStrings(raw, envRaw)) {
        envRaw = raw;
        const vars = {};
        for (let i = 0; i < raw.length; i++) {
          const eq = stringIndexOf(raw[i], '=');
          if (eq > 0) vars[stringSlice(raw[i], 0, eq)] = stringSlice(raw[i], eq + 1);
        }
        envValue = new Proxy(vars, envHandler);
      }
    }
    return envValue;
  }

  // process.exitCode, as Node checks it: an integer, a string of one, undefined or
  // null. It lasts for the run that set it.
  let exitCodeRun = -1;
  let exitCodeValue;
  function setExitCode(code) {
    if (code !== null && code !== undefined) {
      let value = code;
      if (typeof code === 'string' && code !== '' && numberIsInteger(+code)) value = +code;
      validateInteger(value, 'code');
      hostSetExitCode(value & 255);
    } else {
      hostSetExitCode(-1);
    }
    exitCodeRun = hostRunId();
    exitCodeValue = code;
  }
  const getExitCode = () => (exitCodeRun === hostRunId() ? exitCodeValue : undefined);

  function hrtime(time) {
    const ns = hostHrtime();
    const sec = Number(ns / 1000000000n);
    const nsec = Number(ns % 1000000000n);
    if (time !== undefined) {
      if (!isArray(time)) throw invalidArgType('time', 'an instance of Array', time);
      if (time.length !== 2) throw outOfRange('time', 2, time.length);
      const prevSec = time[0];
      const prevNsec = time[1];
      let s = sec - prevSec;
      let n = nsec - prevNsec;
      if (n < 0) {
        s -= 1;
        n += 1e9;
      }
      return [s, n];
    }
    return [sec, nsec];
  }
  hrtime.bigint = named('bigint', () => hostHrtime());

  function memoryUsage() {
    const [rss, heapTotal, heapUsed, external, arrayBuffers] = hostMemoryUsage();
    return { rss, heapTotal, heapUsed, external, arrayBuffers };
  }
  memoryUsage.rss = named('rss', () => hostMemoryUsage()[0]);

  // process.stdout and process.stderr: what they are given goes where console's output
  // goes (to the run's result, or down the shell's pipes).
  function makeStdio(fd) {
    const stream = new EventEmitter();
    const write = (chunk, encoding, cb) => {
      if (typeof encoding === 'function') {
        cb = encoding;
        encoding = undefined;
      }
      let text;
      if (typeof chunk === 'string') {
        text = encoding === undefined || encoding === 'utf8' || encoding === 'utf-8' ? chunk :
          Buffer.from(chunk, encoding).toString('utf8');
      } else if (ArrayBuffer.isView(chunk)) {
        text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
      } else {
        throw invalidArgType('chunk', 'of type string or an instance of Buffer, TypedArray, ' +
          'or DataView', chunk);
      }
      hostWrite(fd, text);
      if (typeof cb === 'function') nextTick(cb, null);
      return true;
    };
    defineProperties(stream, {
      fd: { value: fd, writable: false, enumerable: true, configurable: false },
      writable: hidden(true),
      _isStdio: hidden(true),
      write: hidden(named('write', write)),
      end: hidden(named('end', (chunk, encoding, cb) => {
        if (typeof chunk === 'function') cb = chunk;
        else if (chunk !== undefined && chunk !== null) write(chunk, encoding);
        if (typeof encoding === 'function') cb = encoding;
        if (typeof cb === 'function') nextTick(cb);
        return stream;
      })),
      cork: hidden(named('cork', () => {})),
      uncork: hidden(named('uncork', () => {})),
      setDefaultEncoding: hidden(named('setDefaultEncoding', () => stream)),
    });
    return stream;
  }

  const stdout = makeStdio(1);
  const stderr = makeStdio(2);

  const processProps = {
    version: 'v20.0.0',
    versions: freeze({ node: '20.0.0', quickjs: '2021-03-27' }),
    arch: 'wasm32',
    platform: 'linux',
    release: freeze({ name: 'node' }),
    title: 'capsa',
    argv0: 'capsa',
    execArgv: [],
    execPath: EXEC_PATH,
    pid: 1,
    ppid: 0,
    exitCode: undefined,
    config: freeze({}),
    features: freeze({ inspector: false, debug: false, uv: false, ipv6: false, tls_alpn: false,
      tls_sni: false, tls_ocsp: false, tls: false, cached_builtins: true }),
    stdout,
    stderr,
    cwd: () => CWD,
    chdir(directory) {
      validateString(directory, 'directory');
      throw nodeError(ErrorCtor, 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM',
        'process.chdir() is not available in the sandbox: the working directory is /workspace');
    },
    umask(mask) {
      if (mask !== undefined) validateInteger(typeof mask === 'string' ? +mask : mask, 'mask');
      return 0o22;
    },
    uptime: () => performanceNow() / 1000,
    hrtime,
    memoryUsage,
    nextTick,
    emitWarning,
    exit(code) {
      if (code !== undefined) setExitCode(code);
      const c = getExitCode();
      hostExit(c === undefined || c === null ? 0 : +c);
    },
  };
  for (const name of objectKeys(processProps)) {
    const value = processProps[name];
    if (name === 'exitCode') {
      defineProperty(process, 'exitCode', {
        get: named('get', getExitCode), set: named('set', setExitCode), enumerable: true,
        configurable: false,
      });
    } else {
      defineProperty(process, name, {
        value: typeof value === 'function' ? named(name, value) : value, writable: true,
        enumerable: true, configurable: true,
      });
    }
  }
  defineProperty(process, 'argv', {
    get: named('get', currentArgv),
    set: named('set', (value) => {
      currentArgv();
      argvValue = value;
    }),
    enumerable: true, configurable: true,
  });
  defineProperty(process, 'env', {
    get: named('get', currentEnv),
    set: named('set', (value) => {
      currentEnv();
      envValue = value;
    }),
    enumerable: true, configurable: true,
  });

  // ---------------------------------------------------------------------------
  // querystring
  // ---------------------------------------------------------------------------

  const hexTable = [];
  for (let i = 0; i < 256; ++i) {
    hexTable[i] = `%${stringToUpperCase(stringPadStart(i.toString(16), 2, '0'))}`;
  }
  const isHexTable = new Int8Array(256);
  for (let i = 0; i < 256; i++) {
    isHexTable[i] = (i >= 48 && i <= 57) || (i >= 65 && i <= 70) || (i >= 97 && i <= 102) ? 1 : 0;
  }
  const unhexTable = new Int8Array(256).fill(-1);
  for (let i = 0; i < 10; i++) unhexTable[48 + i] = i;
  for (let i = 0; i < 6; i++) {
    unhexTable[65 + i] = 10 + i;
    unhexTable[97 + i] = 10 + i;
  }

  // The characters querystring.escape leaves: A-Z a-z 0-9 - . _ ~ ! ' ( ) *
  const noEscape = new Int8Array(128);
  for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!'()*") {
    noEscape[stringCharCodeAt(c, 0)] = 1;
  }
  // The characters url.format leaves in auth: those, and ':'.
  const noEscapeAuth = new Int8Array(noEscape);
  noEscapeAuth[58] = 1;

  // Percent-encodes str as UTF-8, but the ASCII characters noEscapeTable marks.
  function encodeStr(str, noEscapeTable) {
    const len = str.length;
    if (len === 0) return '';
    let out = '';
    let lastPos = 0;
    for (let i = 0; i < len; i++) {
      let c = stringCharCodeAt(str, i);
      if (c < 0x80) {
        if (noEscapeTable[c] !== 1) {
          if (lastPos < i) out += stringSlice(str, lastPos, i);
          lastPos = i + 1;
          out += hexTable[c];
        }
        continue;
      }
      if (lastPos < i) out += stringSlice(str, lastPos, i);
      if (c < 0x800) {
        lastPos = i + 1;
        out += hexTable[0xC0 | (c >> 6)] + hexTable[0x80 | (c & 0x3F)];
        continue;
      }
      if (c < 0xD800 || c >= 0xE000) {
        lastPos = i + 1;
        out += hexTable[0xE0 | (c >> 12)] + hexTable[0x80 | ((c >> 6) & 0x3F)] +
          hexTable[0x80 | (c & 0x3F)];
        continue;
      }
      ++i;
      if (i >= len) throw nodeError(URIErrorCtor, 'ERR_INVALID_URI', 'URI malformed');
      const c2 = stringCharCodeAt(str, i) & 0x3FF;
      lastPos = i + 1;
      c = 0x10000 + (((c & 0x3FF) << 10) | c2);
      out += hexTable[0xF0 | (c >> 18)] + hexTable[0x80 | ((c >> 12) & 0x3F)] +
        hexTable[0x80 | ((c >> 6) & 0x3F)] + hexTable[0x80 | (c & 0x3F)];
    }
    if (lastPos === 0) return str;
    if (lastPos < len) return out + stringSlice(str, lastPos);
    return out;
  }

  function qsEscape(str) {
    if (typeof str !== 'string') {
      if (typeof str === 'object') str = StringCtor(str);
      else str += '';
    }
    return encodeStr(str, noEscape);
  }

  // The bytes of s with %XX decoded (and '+' as a space when decodeSpaces), as a Buffer.
  function unescapeBuffer(s, decodeSpaces) {
    const out = Buffer.allocUnsafe(s.length);
    let index = 0;
    let outIndex = 0;
    let currentChar;
    const maxLength = s.length - 2;
    let hasHex = false;
    while (index < s.length) {
      currentChar = stringCharCodeAt(s, index);
      if (currentChar === 43 && decodeSpaces) {
        out[outIndex++] = 32;
        index++;
        continue;
      }
      if (currentChar === 37 && index < maxLength) {
        currentChar = stringCharCodeAt(s, ++index);
        const hexHigh = unhexTable[currentChar];
        if (!(hexHigh >= 0)) {
          out[outIndex++] = 37;
          continue;
        }
        const hexLow = unhexTable[stringCharCodeAt(s, ++index)];
        if (!(hexLow >= 0)) {
          out[outIndex++] = 37;
          index--;
        } else {
          hasHex = true;
          currentChar = hexHigh * 16 + hexLow;
        }
      }
      out[outIndex++] = currentChar;
      index++;
    }
    return hasHex ? out.slice(0, outIndex) : out;
  }

  function qsUnescape(s, decodeSpaces) {
    try {
      return decodeURIComponentFn(s);
    } catch {
      return unescapeBuffer(s, decodeSpaces).toString();
    }
  }

  function stringifyPrimitive(v) {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && numberIsFinite(v)) return `${v}`;
    if (typeof v === 'bigint') return `${v}`;
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    return '';
  }

  function encodeStringified(v, encode) {
    if (typeof v === 'string') return v.length ? encode(v) : '';
    if (typeof v === 'number' && numberIsFinite(v)) {
      return (v < 0 ? -v : v) < 1e21 ? `${v}` : encode(`${v}`);
    }
    if (typeof v === 'bigint') return `${v}`;
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    return '';
  }

  const encodeStringifiedCustom = (v, encode) => encode(stringifyPrimitive(v));

  function qsStringify(obj, sep, eq, options) {
    sep = sep || '&';
    eq = eq || '=';
    let encode = querystring.escape;
    if (options && typeof options.encodeURIComponent === 'function') {
      encode = options.encodeURIComponent;
    }
    const convert = encode === qsEscape ? encodeStringified : encodeStringifiedCustom;
    if (obj === null || typeof obj !== 'object') return '';
    const keys = objectKeys(obj);
    let fields = '';
    for (let i = 0; i < keys.length; ++i) {
      const k = keys[i];
      const v = obj[k];
      const ks = convert(k, encode) + eq;
      if (isArray(v)) {
        if (v.length === 0) continue;
        if (fields) fields += sep;
        for (let j = 0; j < v.length; ++j) {
          if (j) fields += sep;
          fields += ks + convert(v[j], encode);
        }
      } else {
        if (fields) fields += sep;
        fields += ks + convert(v, encode);
      }
    }
    return fields;
  }

  function charCodes(str) {
    const ret = [];
    for (let i = 0; i < str.length; ++i) ret[i] = stringCharCodeAt(str, i);
    return ret;
  }

  function decodeStr(s, decoder) {
    try {
      return decoder(s);
    } catch {
      return querystring.unescape(s, true);
    }
  }

  function addKeyVal(obj, key, value, keyEncoded, valEncoded, decode) {
    if (key.length > 0 && keyEncoded) key = decodeStr(key, decode);
    if (value.length > 0 && valEncoded) value = decodeStr(value, decode);
    if (obj[key] === undefined) {
      obj[key] = value;
    } else {
      const curValue = obj[key];
      if (isArray(curValue)) curValue[curValue.length] = value;
      else obj[key] = [curValue, value];
    }
  }

  // querystring.parse, as Node's: '+' is a space, repeated keys give arrays, at most
  // options.maxKeys (1000) pairs, and only the parts with a %XX are decoded.
  function qsParse(qs, sep, eq, options) {
    const obj = { __proto__: null };
    if (typeof qs !== 'string' || qs.length === 0) return obj;
    const sepCodes = !sep ? [38] : charCodes(StringCtor(sep));
    const eqCodes = !eq ? [61] : charCodes(StringCtor(eq));
    const sepLen = sepCodes.length;
    const eqLen = eqCodes.length;
    let pairs = 1000;
    if (options && typeof options.maxKeys === 'number') {
      pairs = options.maxKeys > 0 ? options.maxKeys : -1;
    }
    let decode = querystring.unescape;
    if (options && typeof options.decodeURIComponent === 'function') {
      decode = options.decodeURIComponent;
    }
    const customDecode = decode !== qsUnescape;
    let lastPos = 0;
    let sepIdx = 0;
    let eqIdx = 0;
    let key = '';
    let value = '';
    let keyEncoded = customDecode;
    let valEncoded = customDecode;
    const plusChar = customDecode ? '%20' : ' ';
    let encodeCheck = 0;
    for (let i = 0; i < qs.length; ++i) {
      const code = stringCharCodeAt(qs, i);
      if (code === sepCodes[sepIdx]) {
        if (++sepIdx === sepLen) {
          const end = i - sepIdx + 1;
          if (eqIdx < eqLen) {
            if (lastPos < end) {
              key += stringSlice(qs, lastPos, end);
            } else if (key.length === 0) {
              if (--pairs === 0) return obj;
              lastPos = i + 1;
              sepIdx = eqIdx = 0;
              continue;
            }
          } else if (lastPos < end) {
            value += stringSlice(qs, lastPos, end);
          }
          addKeyVal(obj, key, value, keyEncoded, valEncoded, decode);
          if (--pairs === 0) return obj;
          keyEncoded = valEncoded = customDecode;
          key = value = '';
          encodeCheck = 0;
          lastPos = i + 1;
          sepIdx = eqIdx = 0;
        }
      } else {
        sepIdx = 0;
        if (eqIdx < eqLen) {
          if (code === eqCodes[eqIdx]) {
            if (++eqIdx === eqLen) {
              const end = i - eqIdx + 1;
              if (lastPos < end) key += stringSlice(qs, lastPos, end);
              encodeCheck = 0;
              lastPos = i + 1;
            }
            continue;
          } else {
            eqIdx = 0;
            if (!keyEncoded) {
              if (code === 37) {
                encodeCheck = 1;
                continue;
              } else if (encodeCheck > 0) {
                if (isHexTable[code] === 1) {
                  if (++encodeCheck === 3) keyEncoded = true;
                  continue;
                } else {
                  encodeCheck = 0;
                }
              }
            }
          }
          if (code === 43) {
            if (lastPos < i) key += stringSlice(qs, lastPos, i);
            key += plusChar;
            lastPos = i + 1;
            continue;
          }
        }
        if (code === 43) {
          if (lastPos < i) value += stringSlice(qs, lastPos, i);
          value += plusChar;
          lastPos = i + 1;
        } else if (!valEncoded) {
          if (code === 37) {
            encodeCheck = 1;
          } else if (encodeCheck > 0) {
            if (isHexTable[code] === 1) {
              if (++encodeCheck === 3) valEncoded = true;
            } else {
              encodeCheck = 0;
            }
          }
        }
      }
    }
    if (lastPos < qs.length) {
      if (eqIdx < eqLen) key += stringSlice(qs, lastPos);
      else if (sepIdx < sepLen) value += stringSlice(qs, lastPos);
    } else if (eqIdx === 0 && key.length === 0) {
      return obj;
    }
    addKeyVal(obj, key, value, keyEncoded, valEncoded, decode);
    return obj;
  }

  const querystring = {
    unescapeBuffer,
    unescape: named('qsUnescape', qsUnescape),
    escape: named('qsEscape', qsEscape),
    stringify: named('stringify', qsStringify),
    encode: named('stringify', qsStringify),
    parse: named('parse', qsParse),
    decode: named('parse', qsParse),
  };

  // ---------------------------------------------------------------------------
  // url: the WHATWG URL (web.js), file URLs, and the legacy url.parse/format/resolve
  // ---------------------------------------------------------------------------

  const { domainToASCII, domainToUnicode } = host.web;
  const isURL = (u) => u != null && typeof u === 'object' && typeof u.href === 'string' &&
    typeof u.protocol === 'string' && u.auth === undefined && u.path === undefined;

  function fileURLToPath(url) {
    if (typeof url === 'string') url = new URLCtor(url);
    else if (!isURL(url)) throw invalidArgType('path', 'of type string or an instance of URL', url);
    if (url.protocol !== 'file:') {
      throw nodeError(TypeErrorCtor, 'ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
    }
    if (url.hostname !== '') {
      throw nodeError(TypeErrorCtor, 'ERR_INVALID_FILE_URL_HOST',
        'File URL host must be "localhost" or empty on linux');
    }
    const pathname = url.pathname;
    for (let n = 0; n < pathname.length; n++) {
      if (pathname[n] === '%') {
        const third = stringCharCodeAt(pathname, n + 2) | 0x20;
        if (pathname[n + 1] === '2' && third === 102) {
          throw nodeError(TypeErrorCtor, 'ERR_INVALID_FILE_URL_PATH',
            'File URL path must not include encoded / characters');
        }
      }
    }
    return decodeURIComponentFn(pathname);
  }

  // The characters pathToFileURL encodes before the URL parser sees the path.
  const fileUrlEncodings = { '%': '%25', '\\': '%5C', '\n': '%0A', '\r': '%0D', '\t': '%09',
    '#': '%23', '?': '%3F' };
  function pathToFileURL(filepath) {
    validateString(filepath, 'path');
    let resolved = path.resolve(filepath);
    if (stringCharCodeAt(filepath, filepath.length - 1) === CHAR_SLASH &&
        resolved[resolved.length - 1] !== '/') {
      resolved += '/';
    }
    return new URLCtor(`file://${stringReplace(resolved, /[%\\\n\r\t#?]/g,
      (c) => fileUrlEncodings[c])}`);
  }

  function urlToHttpOptions(url) {
    const { hostname, pathname, port, username, password, search } = url;
    const options = {
      __proto__: null,
      ...url,
      protocol: url.protocol,
      hostname: hostname && hostname[0] === '[' ? stringSlice(hostname, 1, -1) : hostname,
      hash: url.hash,
      search,
      pathname,
      path: `${pathname || ''}${search || ''}`,
      href: url.href,
    };
    if (port !== '') options.port = Number(port);
    if (username || password) {
      options.auth = `${decodeURIComponentFn(username)}:${decodeURIComponentFn(password)}`;
    }
    return options;
  }

  function Url() {
    this.protocol = null;
    this.slashes = null;
    this.auth = null;
    this.host = null;
    this.port = null;
    this.hostname = null;
    this.hash = null;
    this.search = null;
    this.query = null;
    this.pathname = null;
    this.path = null;
    this.href = null;
  }

  const protocolPattern = /^[a-z0-9.+-]+:/i;
  const portPattern = /:[0-9]*$/;
  const hostPattern = /^\/\/[^@/]+@[^@/]+/;
  const simplePathPattern = /^(\/\/?(?!\/)[^?\s]*)(\?[^\s]*)?$/;
  const hostnameMaxLen = 255;
  const hostlessProtocol = new SetCtor(['javascript', 'javascript:']);
  const slashedProtocol = new SetCtor(['http', 'http:', 'https', 'https:', 'ftp', 'ftp:',
    'gopher', 'gopher:', 'file', 'file:', 'ws', 'ws:', 'wss', 'wss:']);
  const forbiddenHostChars = /[\0\t\n\r #%/:<>?@[\\\]^|]/;
  const forbiddenHostCharsIpv6 = /[\0\t\n\r #%/<>?@\\^|]/;
  // What the legacy parser escapes in the path: delimiters and "unwise" characters of
  // RFC 2396, and the single quote.
  const autoEscaped = { __proto__: null, '\t': '%09', '\n': '%0A', '\r': '%0D', ' ': '%20',
    '"': '%22', '\'': '%27', '<': '%3C', '>': '%3E', '\\': '%5C', '^': '%5E', '`': '%60',
    '{': '%7B', '|': '%7C', '}': '%7D' };
  const autoEscapeRe = /[\t\n\r "'<>\\^`{|}]/g;

  const invalidUrl = (input) => {
    const err = nodeError(TypeErrorCtor, 'ERR_INVALID_URL', 'Invalid URL');
    err.input = input;
    return err;
  };

  function urlParse(url, parseQueryString, slashesDenoteHost) {
    if (url instanceof Url) return url;
    const urlObject = new Url();
    urlObject.parse(url, parseQueryString, slashesDenoteHost);
    return urlObject;
  }

  const isIpv6Hostname = (hostname) => hostname[0] === '[' &&
    hostname[hostname.length - 1] === ']';

  const isWs = (code) => code < 33 || code === 0xA0 || code === 0xFEFF;

  const urlMethods = {
    parse(url, parseQueryString, slashesDenoteHost) {
      validateString(url, 'url');
      // Trims whitespace, and turns back slashes before the query or hash into slashes.
      let hasHash = false;
      let hasAt = false;
      let start = -1;
      let end = -1;
      let rest = '';
      let lastPos = 0;
      for (let i = 0, inWs = false, split = false; i < url.length; ++i) {
        const code = stringCharCodeAt(url, i);
        const ws = isWs(code);
        if (start === -1) {
          if (ws) continue;
          lastPos = start = i;
        } else if (inWs) {
          if (!ws) {
            end = -1;
            inWs = false;
          }
        } else if (ws) {
          end = i;
          inWs = true;
        }
        if (!split) {
          switch (code) {
            case 64: // @
              hasAt = true;
              break;
            case 35: // #
              hasHash = true;
              split = true;
              break;
            case 63: // ?
              split = true;
              break;
            case 92: // \
              if (i - lastPos > 0) rest += stringSlice(url, lastPos, i);
              rest += '/';
              lastPos = i + 1;
              break;
            default:
              break;
          }
        } else if (!hasHash && code === 35) {
          hasHash = true;
        }
      }
      if (start !== -1) {
        if (lastPos === start) {
          rest = end === -1 ? (start === 0 ? url : stringSlice(url, start)) :
            stringSlice(url, start, end);
        } else if (end === -1 && lastPos < url.length) {
          rest += stringSlice(url, lastPos);
        } else if (end !== -1 && lastPos < end) {
          rest += stringSlice(url, lastPos, end);
        }
      }

      if (!slashesDenoteHost && !hasHash && !hasAt) {
        const simplePath = regExpExec(simplePathPattern, rest);
        if (simplePath) {
          this.path = rest;
          this.href = rest;
          this.pathname = simplePath[1];
          if (simplePath[2]) {
            this.search = simplePath[2];
            this.query = parseQueryString ? qsParse(stringSlice(this.search, 1)) :
              stringSlice(this.search, 1);
          } else if (parseQueryString) {
            this.search = null;
            this.query = { __proto__: null };
          }
          return this;
        }
      }

      let proto = regExpExec(protocolPattern, rest);
      let lowerProto;
      if (proto) {
        proto = proto[0];
        lowerProto = stringToLowerCase(proto);
        this.protocol = lowerProto;
        rest = stringSlice(rest, proto.length);
      }

      let slashes;
      if (slashesDenoteHost || proto || regExpTest(hostPattern, rest)) {
        slashes = stringCharCodeAt(rest, 0) === CHAR_SLASH && stringCharCodeAt(rest, 1) === CHAR_SLASH;
        if (slashes && !(proto && setHas(hostlessProtocol, lowerProto))) {
          rest = stringSlice(rest, 2);
          this.slashes = true;
        }
      }

      if (!setHas(hostlessProtocol, lowerProto) &&
          (slashes || (proto && !setHas(slashedProtocol, proto)))) {
        // The host ends at the first '/', '?' or '#'; what comes before the last '@'
        // before it is the auth.
        let hostEnd = -1;
        let atSign = -1;
        let nonHost = -1;
        for (let i = 0; i < rest.length; ++i) {
          switch (stringCharCodeAt(rest, i)) {
            case 9: case 10: case 13: case 32: case 34: case 37: case 39: case 59: case 60:
            case 62: case 92: case 94: case 96: case 123: case 124: case 125:
              if (nonHost === -1) nonHost = i;
              break;
            case 35: case 47: case 63:
              if (nonHost === -1) nonHost = i;
              hostEnd = i;
              break;
            case 64:
              atSign = i;
              nonHost = -1;
              break;
            default:
              break;
          }
          if (hostEnd !== -1) break;
        }
        start = 0;
        if (atSign !== -1) {
          this.auth = decodeURIComponentFn(stringSlice(rest, 0, atSign));
          start = atSign + 1;
        }
        if (nonHost === -1) {
          this.host = stringSlice(rest, start);
          rest = '';
        } else {
          this.host = stringSlice(rest, start, nonHost);
          rest = stringSlice(rest, nonHost);
        }
        this.parseHost();
        if (typeof this.hostname !== 'string') this.hostname = '';
        const hostname = this.hostname;
        const ipv6Hostname = isIpv6Hostname(hostname);
        if (!ipv6Hostname) {
          for (let i = 0; i < hostname.length; ++i) {
            const code = stringCharCodeAt(hostname, i);
            if (code === CHAR_SLASH || code === 92 || code === 35 || code === 63 || code === 58) {
              this.hostname = stringSlice(hostname, 0, i);
              rest = `/${stringSlice(hostname, i)}${rest}`;
              break;
            }
          }
        }
        if (this.hostname.length > hostnameMaxLen) this.hostname = '';
        else this.hostname = stringToLowerCase(this.hostname);
        if (this.hostname !== '') {
          if (ipv6Hostname) {
            if (regExpTest(forbiddenHostCharsIpv6, this.hostname)) throw invalidUrl(url);
          } else {
            this.hostname = domainToASCII(this.hostname);
            if (this.hostname === '' || regExpTest(forbiddenHostChars, this.hostname)) {
              throw invalidUrl(url);
            }
          }
        }
        const p = this.port ? `:${this.port}` : '';
        this.host = (this.hostname || '') + p;
        if (ipv6Hostname) {
          this.hostname = stringSlice(this.hostname, 1, -1);
          if (rest[0] !== '/') rest = `/${rest}`;
        }
      }

      if (!setHas(hostlessProtocol, lowerProto)) {
        rest = stringReplace(rest, autoEscapeRe, (c) => autoEscaped[c]);
      }

      let questionIdx = -1;
      let hashIdx = -1;
      for (let i = 0; i < rest.length; ++i) {
        const code = stringCharCodeAt(rest, i);
        if (code === 35) {
          this.hash = stringSlice(rest, i);
          hashIdx = i;
          break;
        } else if (code === 63 && questionIdx === -1) {
          questionIdx = i;
        }
      }
      if (questionIdx !== -1) {
        if (hashIdx === -1) {
          this.search = stringSlice(rest, questionIdx);
          this.query = stringSlice(rest, questionIdx + 1);
        } else {
          this.search = stringSlice(rest, questionIdx, hashIdx);
          this.query = stringSlice(rest, questionIdx + 1, hashIdx);
        }
        if (parseQueryString) this.query = qsParse(this.query);
      } else if (parseQueryString) {
        this.search = null;
        this.query = { __proto__: null };
      }
      const useQuestionIdx = questionIdx !== -1 && (hashIdx === -1 || questionIdx < hashIdx);
      const firstIdx = useQuestionIdx ? questionIdx : hashIdx;
      if (firstIdx === -1) {
        if (rest.length > 0) this.pathname = rest;
      } else if (firstIdx > 0) {
        this.pathname = stringSlice(rest, 0, firstIdx);
      }
      if (setHas(slashedProtocol, lowerProto) && this.hostname && !this.pathname) {
        this.pathname = '/';
      }
      if (this.pathname || this.search) {
        this.path = (this.pathname || '') + (this.search || '');
      }
      this.href = this.format();
      return this;
    },

    format() {
      let auth = this.auth || '';
      if (auth) auth = `${encodeStr(auth, noEscapeAuth)}@`;
      let protocol = this.protocol || '';
      let pathname = this.pathname || '';
      let hash = this.hash || '';
      let host = '';
      let query = '';
      if (this.host) {
        host = auth + this.host;
      } else if (this.hostname) {
        host = auth + (stringIncludes(this.hostname, ':') && !isIpv6Hostname(this.hostname) ?
          `[${this.hostname}]` : this.hostname);
        if (this.port) host += `:${this.port}`;
      }
      if (this.query !== null && typeof this.query === 'object') query = qsStringify(this.query);
      let search = this.search || (query && (`?${query}`)) || '';
      if (protocol && stringCharCodeAt(protocol, protocol.length - 1) !== 58) protocol += ':';
      pathname = stringReplace(stringReplace(pathname, /#/g, '%23'), /\?/g, '%3F');
      if (this.slashes || setHas(slashedProtocol, protocol)) {
        if (this.slashes || host) {
          if (pathname && stringCharCodeAt(pathname, 0) !== CHAR_SLASH) pathname = `/${pathname}`;
          host = `//${host}`;
        } else if (protocol.length >= 4 && stringStartsWith(protocol, 'file')) {
          host = '//';
        }
      }
      search = stringReplace(search, /#/g, '%23');
      if (hash && stringCharCodeAt(hash, 0) !== 35) hash = `#${hash}`;
      if (search && stringCharCodeAt(search, 0) !== 63) search = `?${search}`;
      return protocol + host + pathname + search + hash;
    },

    resolve(relative) {
      return this.resolveObject(urlParse(relative, false, true)).format();
    },

    resolveObject(relative) {
      if (typeof relative === 'string') {
        const rel = new Url();
        rel.parse(relative, false, true);
        relative = rel;
      }
      const result = new Url();
      const tkeys = objectKeys(this);
      for (let tk = 0; tk < tkeys.length; tk++) result[tkeys[tk]] = this[tkeys[tk]];
      result.hash = relative.hash;
      if (relative.href === '') {
        result.href = result.format();
        return result;
      }
      if (relative.slashes && !relative.protocol) {
        const rkeys = objectKeys(relative);
        for (let rk = 0; rk < rkeys.length; rk++) {
          if (rkeys[rk] !== 'protocol') result[rkeys[rk]] = relative[rkeys[rk]];
        }
        if (setHas(slashedProtocol, result.protocol) && result.hostname && !result.pathname) {
          result.path = result.pathname = '/';
        }
        result.href = result.format();
        return result;
      }
      if (relative.protocol && relative.protocol !== result.protocol) {
        if (!setHas(slashedProtocol, relative.protocol)) {
          const keys = objectKeys(relative);
          for (let v = 0; v < keys.length; v++) result[keys[v]] = relative[keys[v]];
          result.href = result.format();
          return result;
        }
        result.protocol = relative.protocol;
        if (!relative.host && !regExpTest(/^file:?$/, relative.protocol) &&
            !setHas(hostlessProtocol, relative.protocol)) {
          const relPath = stringSplit(relative.pathname || '', '/');
          while (relPath.length && !(relative.host = arrayShift(relPath)));
          if (!relative.host) relative.host = '';
          if (!relative.hostname) relative.hostname = '';
          if (relPath[0] !== '') arrayUnshift(relPath, '');
          if (relPath.length < 2) arrayUnshift(relPath, '');
          result.pathname = arrayJoin(relPath, '/');
        } else {
          result.pathname = relative.pathname;
        }
        result.search = relative.search;
        result.query = relative.query;
        result.host = relative.host || '';
        result.auth = relative.auth;
        result.hostname = relative.hostname || relative.host;
        result.port = relative.port;
        if (result.pathname || result.search) {
          result.path = (result.pathname || '') + (result.search || '');
        }
        result.slashes = result.slashes || relative.slashes;
        result.href = result.format();
        return result;
      }

      const isSourceAbs = result.pathname && result.pathname[0] === '/';
      const isRelAbs = relative.host || (relative.pathname && relative.pathname[0] === '/');
      let mustEndAbs = isRelAbs || isSourceAbs || (result.host && relative.pathname);
      const removeAllDots = mustEndAbs;
      let srcPath = (result.pathname && stringSplit(result.pathname, '/')) || [];
      const relPath = (relative.pathname && stringSplit(relative.pathname, '/')) || [];
      const noLeadingSlashes = result.protocol && !setHas(slashedProtocol, result.protocol);

      if (noLeadingSlashes) {
        result.hostname = '';
        result.port = null;
        if (result.host) {
          if (srcPath[0] === '') srcPath[0] = result.host;
          else arrayUnshift(srcPath, result.host);
        }
        result.host = '';
        if (relative.protocol) {
          relative.hostname = null;
          relative.port = null;
          if (relative.host) {
            if (relPath[0] === '') relPath[0] = relative.host;
            else arrayUnshift(relPath, relative.host);
          }
          relative.host = null;
        }
        mustEndAbs = mustEndAbs && (relPath[0] === '' || srcPath[0] === '');
      }

      if (isRelAbs) {
        if (relative.host || relative.host === '') {
          if (result.host !== relative.host) result.auth = null;
          result.host = relative.host;
          result.port = relative.port;
        }
        if (relative.hostname || relative.hostname === '') {
          if (result.hostname !== relative.hostname) result.auth = null;
          result.hostname = relative.hostname;
        }
        result.search = relative.search;
        result.query = relative.query;
        srcPath = relPath;
      } else if (relPath.length) {
        arrayPop(srcPath);
        srcPath = arrayConcat(srcPath, relPath);
        result.search = relative.search;
        result.query = relative.query;
      } else if (relative.search !== null && relative.search !== undefined) {
        if (noLeadingSlashes) {
          result.hostname = result.host = arrayShift(srcPath);
          const authInHost = result.host && stringIndexOf(result.host, '@') > 0 &&
            stringSplit(result.host, '@');
          if (authInHost) {
            result.auth = arrayShift(authInHost);
            result.host = result.hostname = arrayShift(authInHost);
          }
        }
        result.search = relative.search;
        result.query = relative.query;
        if (result.pathname !== null || result.search !== null) {
          result.path = (result.pathname ? result.pathname : '') +
            (result.search ? result.search : '');
        }
        result.href = result.format();
        return result;
      }

      if (!srcPath.length) {
        result.pathname = null;
        result.path = result.search ? `/${result.search}` : null;
        result.href = result.format();
        return result;
      }

      let last = srcPath[srcPath.length - 1];
      const hasTrailingSlash = ((result.host || relative.host || srcPath.length > 1) &&
        (last === '.' || last === '..')) || last === '';
      let up = 0;
      for (let i = srcPath.length - 1; i >= 0; i--) {
        last = srcPath[i];
        if (last === '.') {
          arraySplice(srcPath, i, 1);
        } else if (last === '..') {
          arraySplice(srcPath, i, 1);
          up++;
        } else if (up) {
          arraySplice(srcPath, i, 1);
          up--;
        }
      }
      if (!mustEndAbs && !removeAllDots) {
        while (up--) arrayUnshift(srcPath, '..');
      }
      if (mustEndAbs && srcPath[0] !== '' && (!srcPath[0] || srcPath[0][0] !== '/')) {
        arrayUnshift(srcPath, '');
      }
      if (hasTrailingSlash && stringSlice(arrayJoin(srcPath, '/'), -1) !== '/') {
        arrayPush(srcPath, '');
      }
      const isAbsolute = srcPath[0] === '' || (srcPath[0] && srcPath[0][0] === '/');
      if (noLeadingSlashes) {
        result.hostname = result.host = isAbsolute ? '' : srcPath.length ? arrayShift(srcPath) : '';
        const authInHost = result.host && stringIndexOf(result.host, '@') > 0 ?
          stringSplit(result.host, '@') : false;
        if (authInHost) {
          result.auth = arrayShift(authInHost);
          result.host = result.hostname = arrayShift(authInHost);
        }
      }
      mustEndAbs = mustEndAbs || (result.host && srcPath.length);
      if (mustEndAbs && !isAbsolute) arrayUnshift(srcPath, '');
      if (srcPath.length > 0) {
        result.pathname = arrayJoin(srcPath, '/');
      } else {
        result.pathname = null;
        result.path = null;
      }
      if (result.pathname !== null || result.search !== null) {
        result.path = (result.pathname ? result.pathname : '') +
          (result.search ? result.search : '');
      }
      result.auth = relative.auth || result.auth;
      result.slashes = result.slashes || relative.slashes;
      result.href = result.format();
      return result;
    },

    parseHost() {
      let h = this.host;
      let port = regExpExec(portPattern, h);
      if (port) {
        port = port[0];
        if (port !== ':') this.port = stringSlice(port, 1);
        h = stringSlice(h, 0, h.length - port.length);
      }
      if (h) this.hostname = h;
    },
  };
  for (const name of objectKeys(urlMethods)) {
    defineProperty(Url.prototype, name, {
      value: urlMethods[name], writable: true, enumerable: true, configurable: true,
    });
  }

  // url.format(urlObject | URL | string[, options]).
  function urlFormat(urlObject, options) {
    if (typeof urlObject === 'string') {
      urlObject = urlParse(urlObject);
    } else if (typeof urlObject !== 'object' || urlObject === null) {
      throw invalidArgType('urlObject', 'one of type object or string', urlObject);
    } else if (isURL(urlObject)) {
      let fragment = true;
      let unicode = false;
      let search = true;
      let auth = true;
      if (options) {
        validateObject(options, 'options');
        if (options.fragment != null) fragment = Boolean(options.fragment);
        if (options.unicode != null) unicode = Boolean(options.unicode);
        if (options.search != null) search = Boolean(options.search);
        if (options.auth != null) auth = Boolean(options.auth);
      }
      const u = urlObject;
      const hasAuthority = stringStartsWith(stringSlice(u.href, u.protocol.length), '//');
      let out = u.protocol;
      if (hasAuthority) {
        out += '//';
        if (auth && (u.username || u.password)) {
          out += u.username;
          if (u.password) out += `:${u.password}`;
          out += '@';
        }
        out += unicode ? domainToUnicode(u.hostname) || u.hostname : u.hostname;
        if (u.port) out += `:${u.port}`;
      }
      out += u.pathname;
      if (search) out += u.search;
      if (fragment) out += u.hash;
      return out;
    }
    return reflectApply(urlMethods.format, urlObject, []);
  }

  function urlResolve(source, relative) {
    return urlParse(source, false, true).resolve(relative);
  }

  function urlResolveObject(source, relative) {
    if (!source) return relative;
    return urlParse(source, false, true).resolveObject(relative);
  }

  const url = {
    Url,
    parse: named('urlParse', urlParse),
    resolve: named('urlResolve', urlResolve),
    resolveObject: named('urlResolveObject', urlResolveObject),
    format: named('urlFormat', urlFormat),
    URL: URLCtor,
    URLSearchParams: URLSearchParamsCtor,
    domainToASCII,
    domainToUnicode,
    pathToFileURL,
    fileURLToPath,
    urlToHttpOptions,
  };

  // ---------------------------------------------------------------------------
  // string_decoder (as Node's C++ decoder keeps its state: a character cut between
  // two chunks is kept and finished by the next)
  // ---------------------------------------------------------------------------

  const decoderEncodings = {
    __proto__: null, utf8: 'utf8', 'utf-8': 'utf8', '': 'utf8', ucs2: 'utf16le',
    'ucs-2': 'utf16le', utf16le: 'utf16le', 'utf-16le': 'utf16le', latin1: 'latin1',
    binary: 'latin1', base64: 'base64', base64url: 'base64url', hex: 'hex', ascii: 'ascii',
  };
  const kDecoder = SymbolCtor('kDecoderState');

  function decoderEncoding(enc) {
    if (enc === undefined || enc === null) return 'utf8';
    const known = decoderEncodings[`${enc}`] || decoderEncodings[stringToLowerCase(`${enc}`)];
    if (known === undefined) {
      throw nodeError(TypeErrorCtor, 'ERR_UNKNOWN_ENCODING', `Unknown encoding: ${enc}`);
    }
    return known;
  }

  class StringDecoder {
    constructor(encoding) {
      this.encoding = decoderEncoding(encoding);
      defineProperty(this, kDecoder, {
        value: { missing: 0, buffered: 0, chars: Buffer.alloc(4) }, enumerable: false,
      });
    }

    write(buf) {
      if (typeof buf === 'string') return buf;
      if (!ArrayBuffer.isView(buf)) {
        throw invalidArgType('buf', 'an instance of Buffer, TypedArray, or DataView', buf);
      }
      return decodeChunk(this, Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength));
    }

    end(buf) {
      let ret = buf === undefined ? '' : this.write(buf);
      const st = this[kDecoder];
      if (this.encoding === 'utf16le' && st.buffered % 2 === 1) {
        st.missing--;
        st.buffered--;
      }
      if (st.buffered > 0) ret += st.chars.toString(this.encoding, 0, st.buffered);
      st.missing = 0;
      st.buffered = 0;
      return ret;
    }

    text(buf, offset) {
      const st = this[kDecoder];
      st.missing = 0;
      st.buffered = 0;
      return this.write(buf.slice(offset));
    }

    get lastChar() {
      return this[kDecoder].chars;
    }

    get lastNeed() {
      return this[kDecoder].missing;
    }

    get lastTotal() {
      return this[kDecoder].buffered + this[kDecoder].missing;
    }
  }

  function decodeChunk(decoder, data) {
    const enc = decoder.encoding;
    if (enc === 'ascii' || enc === 'hex' || enc === 'latin1') return data.toString(enc);
    const st = decoder[kDecoder];
    let prepend = '';
    let start = 0;
    let nread = data.length;
    if (st.missing > 0) {
      if (enc === 'utf8') {
        // A byte that does not continue the character starts a new one.
        for (let i = 0; i < nread && i < st.missing; ++i) {
          if ((data[i] & 0xC0) !== 0x80) {
            st.missing = 0;
            data.copy(st.chars, st.buffered, 0, i);
            st.buffered += i;
            start += i;
            nread -= i;
            break;
          }
        }
      }
      const found = mathMin(nread, st.missing);
      data.copy(st.chars, st.buffered, start, start + found);
      start += found;
      nread -= found;
      st.missing -= found;
      st.buffered += found;
      if (st.missing === 0) {
        prepend = st.chars.toString(enc, 0, st.buffered);
        st.buffered = 0;
      }
    }
    if (nread === 0) return prepend;
    const end = start + nread;
    if (enc === 'utf8' && (data[end - 1] & 0x80)) {
      for (let i = end - 1; ; --i) {
        st.buffered++;
        if ((data[i] & 0xC0) === 0x80) {
          if (st.buffered >= 4 || i === start) {
            st.buffered = 0;
            break;
          }
        } else {
          if ((data[i] & 0xE0) === 0xC0) st.missing = 2;
          else if ((data[i] & 0xF0) === 0xE0) st.missing = 3;
          else if ((data[i] & 0xF8) === 0xF0) st.missing = 4;
          else {
            st.buffered = 0;
            break;
          }
          if (st.buffered >= st.missing) {
            st.missing = 0;
            st.buffered = 0;
          }
          st.missing -= st.buffered;
          break;
        }
      }
    } else if (enc === 'utf16le') {
      if (nread % 2 === 1) {
        st.buffered = 1;
        st.missing = 1;
      } else if ((data[end - 1] & 0xFC) === 0xD8) {
        st.buffered = 2;
        st.missing = 2;
      }
    } else if (enc === 'base64' || enc === 'base64url') {
      st.buffered = nread % 3;
      if (st.buffered > 0) st.missing = 3 - st.buffered;
    }
    let bodyEnd = end;
    if (st.buffered > 0) {
      bodyEnd = end - st.buffered;
      data.copy(st.chars, 0, bodyEnd, end);
    }
    return prepend + (bodyEnd > start ? data.toString(enc, start, bodyEnd) : '');
  }

  const stringDecoder = { StringDecoder };

  // ---------------------------------------------------------------------------
  // Deep equality (assert.deepEqual, deepStrictEqual, util.isDeepStrictEqual)
  // ---------------------------------------------------------------------------

  const kNoIterator = 0;
  const kIsArray = 1;
  const kIsSet = 2;
  const kIsMap = 3;
  const isAnyArrayBuffer = types.isAnyArrayBuffer;
  const isBoxed = types.isBoxedPrimitive;
  const isArrayBufferView = ArrayBuffer.isView;
  const bytesOf = (v) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  const dateGetTime = uncurry(Date.prototype.getTime);

  function sameBytes(a, b) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function areSimilarFloatArrays(a, b) {
    if (a.byteLength !== b.byteLength) return false;
    for (let offset = 0; offset < a.length; offset++) if (a[offset] !== b[offset]) return false;
    return true;
  }

  function isEqualBoxedPrimitive(val1, val2) {
    const a = boxedPrimitive(val1);
    const b = boxedPrimitive(val2);
    return b !== undefined && a[0] === b[0] && objectIs(a[1], b[1]);
  }

  // Own enumerable keys that are not array indices (symbols too unless skipSymbols).
  function nonIndexKeys(val, skipSymbols) {
    const keys = reflectOwnKeys(val);
    const out = [];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === 'symbol') {
        if (skipSymbols) continue;
      } else if (regExpTest(/^(0|[1-9][0-9]*)$/, key) && +key < 4294967295) {
        continue;
      }
      if (propertyIsEnumerable(val, key)) arrayPush(out, key);
    }
    return out;
  }

  const isErrorLike = (v) => isNativeError(v) || v instanceof ErrorCtor;

  function innerDeepEqual(val1, val2, strict, memos) {
    if (val1 === val2) {
      if (val1 !== 0) return true;
      return strict ? objectIs(val1, val2) : true;
    }
    if (strict) {
      if (typeof val1 !== 'object') {
        return typeof val1 === 'number' && numberIsNaN(val1) && numberIsNaN(val2);
      }
      if (typeof val2 !== 'object' || val1 === null || val2 === null) return false;
      if (getPrototypeOf(val1) !== getPrototypeOf(val2)) return false;
    } else {
      if (val1 === null || typeof val1 !== 'object') {
        if (val2 === null || typeof val2 !== 'object') {
          // eslint-disable-next-line eqeqeq
          return val1 == val2 || (numberIsNaN(val1) && numberIsNaN(val2));
        }
        return false;
      }
      if (val2 === null || typeof val2 !== 'object') return false;
    }
    const val1Tag = objectToString(val1);
    if (val1Tag !== objectToString(val2)) return false;
    if (isArray(val1)) {
      if (!isArray(val2) || val1.length !== val2.length) return false;
      const keys1 = nonIndexKeys(val1, !strict);
      if (keys1.length !== nonIndexKeys(val2, !strict).length) return false;
      return keyCheck(val1, val2, strict, memos, kIsArray, keys1);
    } else if (val1Tag === '[object Object]') {
      return keyCheck(val1, val2, strict, memos, kNoIterator);
    } else if (isDate(val1)) {
      if (!isDate(val2) || dateGetTime(val1) !== dateGetTime(val2)) return false;
    } else if (isRegExp(val1)) {
      if (!isRegExp(val2) || val1.source !== val2.source || val1.flags !== val2.flags ||
          val1.lastIndex !== val2.lastIndex) return false;
    } else if (isErrorLike(val1)) {
      if (!isErrorLike(val2) || val1.message !== val2.message || val1.name !== val2.name) {
        return false;
      }
    } else if (isArrayBufferView(val1)) {
      if (!isArrayBufferView(val2)) return false;
      if (!strict && (typedArrayTag(val1) === 'Float32Array' ||
          typedArrayTag(val1) === 'Float64Array')) {
        if (!areSimilarFloatArrays(val1, val2)) return false;
      } else if (!sameBytes(bytesOf(val1), bytesOf(val2))) {
        return false;
      }
      const keys1 = nonIndexKeys(val1, !strict);
      if (keys1.length !== nonIndexKeys(val2, !strict).length) return false;
      return keyCheck(val1, val2, strict, memos, kNoIterator, keys1);
    } else if (isSet(val1)) {
      if (!isSet(val2) || setSizeOf(val1) !== setSizeOf(val2)) return false;
      return keyCheck(val1, val2, strict, memos, kIsSet);
    } else if (isMap(val1)) {
      if (!isMap(val2) || mapSizeOf(val1) !== mapSizeOf(val2)) return false;
      return keyCheck(val1, val2, strict, memos, kIsMap);
    } else if (isAnyArrayBuffer(val1)) {
      if (!isAnyArrayBuffer(val2) || !sameBytes(new Uint8Array(val1), new Uint8Array(val2))) {
        return false;
      }
    } else if (isBoxed(val1)) {
      if (!isEqualBoxedPrimitive(val1, val2)) return false;
    } else if (isArray(val2) || isArrayBufferView(val2) || isSet(val2) || isMap(val2) ||
               isDate(val2) || isRegExp(val2) || isAnyArrayBuffer(val2) || isBoxed(val2) ||
               isErrorLike(val2)) {
      return false;
    }
    return keyCheck(val1, val2, strict, memos, kNoIterator);
  }

  function keyCheck(val1, val2, strict, memos, iterationType, aKeys) {
    const ownKeys = aKeys === undefined;
    if (ownKeys) {
      aKeys = objectKeys(val1);
      if (aKeys.length !== objectKeys(val2).length) return false;
    }
    for (let i = 0; i < aKeys.length; i++) if (!hasOwn(val2, aKeys[i])) return false;
    if (strict && ownKeys) {
      const symbolKeysA = getOwnPropertySymbols(val1);
      const symbolKeysB = getOwnPropertySymbols(val2);
      let count = 0;
      for (let i = 0; i < symbolKeysA.length; i++) {
        const key = symbolKeysA[i];
        if (propertyIsEnumerable(val1, key)) {
          if (!propertyIsEnumerable(val2, key)) return false;
          arrayPush(aKeys, key);
          count++;
        } else if (propertyIsEnumerable(val2, key)) {
          return false;
        }
      }
      let countB = 0;
      for (let i = 0; i < symbolKeysB.length; i++) {
        if (propertyIsEnumerable(val2, symbolKeysB[i])) countB++;
      }
      if (countB !== count) return false;
    }
    if (aKeys.length === 0 && (iterationType === kNoIterator ||
        (iterationType === kIsArray && val1.length === 0) ||
        (iterationType === kIsSet && setSizeOf(val1) === 0) ||
        (iterationType === kIsMap && mapSizeOf(val1) === 0))) {
      return true;
    }
    if (memos === undefined) {
      memos = { val1: new MapCtor(), val2: new MapCtor(), position: 0 };
    } else {
      const val2MemoA = mapGet(memos.val1, val1);
      if (val2MemoA !== undefined) {
        const val2MemoB = mapGet(memos.val2, val2);
        if (val2MemoB !== undefined) return val2MemoA === val2MemoB;
      }
      memos.position++;
    }
    mapSet(memos.val1, val1, memos.position);
    mapSet(memos.val2, val2, memos.position);
    const areEq = objEquiv(val1, val2, strict, aKeys, memos, iterationType);
    mapDelete(memos.val1, val1);
    mapDelete(memos.val2, val2);
    return areEq;
  }

  const setItems = (set) => arrayFromIterator(setValues(set));
  const mapItems = (map) => arrayFromIterator(mapEntries(map));
  function arrayFromIterator(it) {
    const out = [];
    for (let r = iteratorNext(it); !r.done; r = iteratorNext(it)) arrayPush(out, r.value);
    return out;
  }

  function setHasEqualElement(set, val1, strict, memo) {
    const items = setItems(set);
    for (let i = 0; i < items.length; i++) {
      if (innerDeepEqual(val1, items[i], strict, memo)) {
        setDelete(set, items[i]);
        return true;
      }
    }
    return false;
  }

  function findLooseMatchingPrimitives(prim) {
    switch (typeof prim) {
      case 'undefined':
        return null;
      case 'object':
        return undefined;
      case 'symbol':
        return false;
      case 'string':
        prim = +prim;
      // falls through
      case 'number':
        if (numberIsNaN(prim)) return false;
        break;
      default:
        break;
    }
    return true;
  }

  function setMightHaveLoosePrim(a, b, prim) {
    const altValue = findLooseMatchingPrimitives(prim);
    if (altValue != null) return altValue;
    return setHas(b, altValue) && !setHas(a, altValue);
  }

  function mapMightHaveLoosePrim(a, b, prim, item, memo) {
    const altValue = findLooseMatchingPrimitives(prim);
    if (altValue != null) return altValue;
    const curB = mapGet(b, altValue);
    if ((curB === undefined && !mapHas(b, altValue)) || !innerDeepEqual(item, curB, false, memo)) {
      return false;
    }
    return !mapHas(a, altValue) && innerDeepEqual(item, curB, false, memo);
  }

  function setEquiv(a, b, strict, memo) {
    let set = null;
    const itemsA = setItems(a);
    for (let i = 0; i < itemsA.length; i++) {
      const val = itemsA[i];
      if (typeof val === 'object' && val !== null) {
        if (set === null) set = new SetCtor();
        setAdd(set, val);
      } else if (!setHas(b, val)) {
        if (strict) return false;
        if (!setMightHaveLoosePrim(a, b, val)) return false;
        if (set === null) set = new SetCtor();
        setAdd(set, val);
      }
    }
    if (set !== null) {
      const itemsB = setItems(b);
      for (let i = 0; i < itemsB.length; i++) {
        const val = itemsB[i];
        if (typeof val === 'object' && val !== null) {
          if (!setHasEqualElement(set, val, strict, memo)) return false;
        } else if (!strict && !setHas(a, val) && !setHasEqualElement(set, val, strict, memo)) {
          return false;
        }
      }
      return setSizeOf(set) === 0;
    }
    return true;
  }

  function mapHasEqualEntry(set, map, key1, item1, strict, memo) {
    const keys = setItems(set);
    for (let i = 0; i < keys.length; i++) {
      const key2 = keys[i];
      if (innerDeepEqual(key1, key2, strict, memo) &&
          innerDeepEqual(item1, mapGet(map, key2), strict, memo)) {
        setDelete(set, key2);
        return true;
      }
    }
    return false;
  }

  function mapEquiv(a, b, strict, memo) {
    let set = null;
    const entriesA = mapItems(a);
    for (let i = 0; i < entriesA.length; i++) {
      const [key, item1] = entriesA[i];
      if (typeof key === 'object' && key !== null) {
        if (set === null) set = new SetCtor();
        setAdd(set, key);
      } else {
        const item2 = mapGet(b, key);
        if ((item2 === undefined && !mapHas(b, key)) ||
            !innerDeepEqual(item1, item2, strict, memo)) {
          if (strict) return false;
          if (!mapMightHaveLoosePrim(a, b, key, item1, memo)) return false;
          if (set === null) set = new SetCtor();
          setAdd(set, key);
        }
      }
    }
    if (set !== null) {
      const entriesB = mapItems(b);
      for (let i = 0; i < entriesB.length; i++) {
        const [key, item] = entriesB[i];
        if (typeof key === 'object' && key !== null) {
          if (!mapHasEqualEntry(set, a, key, item, strict, memo)) return false;
        } else if (!strict && (!mapHas(a, key) || !innerDeepEqual(mapGet(a, key), item, false, memo)) &&
                   !mapHasEqualEntry(set, a, key, item, false, memo)) {
          return false;
        }
      }
      return setSizeOf(set) === 0;
    }
    return true;
  }

  function objEquiv(a, b, strict, keys, memos, iterationType) {
    if (iterationType === kIsSet) {
      if (!setEquiv(a, b, strict, memos)) return false;
    } else if (iterationType === kIsMap) {
      if (!mapEquiv(a, b, strict, memos)) return false;
    } else if (iterationType === kIsArray) {
      for (let i = 0; i < a.length; i++) {
        if (hasOwn(a, i)) {
          if (!hasOwn(b, i) || !innerDeepEqual(a[i], b[i], strict, memos)) return false;
        } else if (hasOwn(b, i)) {
          return false;
        } else {
          const keysA = objectKeys(a);
          for (; i < keysA.length; i++) {
            const key = keysA[i];
            if (!hasOwn(b, key) || !innerDeepEqual(a[key], b[key], strict, memos)) return false;
          }
          return keysA.length === objectKeys(b).length;
        }
      }
    }
    for (let i = 0; i < keys.length; i++) {
      if (!innerDeepEqual(a[keys[i]], b[keys[i]], strict, memos)) return false;
    }
    return true;
  }

  const isDeepEqual = (a, b) => innerDeepEqual(a, b, false);
  const isDeepStrictEqual = (a, b) => innerDeepEqual(a, b, true);

  // ---------------------------------------------------------------------------
  // assert
  // ---------------------------------------------------------------------------

  const kReadableOperator = {
    deepStrictEqual: 'Expected values to be strictly deep-equal:',
    strictEqual: 'Expected values to be strictly equal:',
    strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
    deepEqual: 'Expected values to be loosely deep-equal:',
    notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
    notStrictEqual: 'Expected "actual" to be strictly unequal to:',
    notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
    notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
    notIdentical: 'Values have same structure but are not reference-equal:',
    notDeepEqualUnequal: 'Expected values not to be loosely deep-equal:',
  };
  const kMaxShortLength = 12;

  // The text assert's messages show for a value, whatever util.inspect's defaults are.
  const inspectValue = (val) => inspect(val, {
    compact: false, customInspect: false, depth: 1000, maxArrayLength: Infinity,
    showHidden: false, showProxy: false, sorted: true, getters: true,
  });

  // The diff of two values' inspected lines, as Node writes it: "+ actual - expected",
  // identical runs collapsed to "...".
  function createErrDiff(actual, expected, operator, customMessage) {
    let other = '';
    let res = '';
    let end = '';
    let skipped = false;
    const actualInspected = inspectValue(actual);
    const actualLines = stringSplit(actualInspected, '\n');
    const expectedLines = stringSplit(inspectValue(expected), '\n');
    let i = 0;
    let indicator = '';
    if (operator === 'strictEqual' &&
        ((typeof actual === 'object' && actual !== null &&
          typeof expected === 'object' && expected !== null) ||
         (typeof actual === 'function' && typeof expected === 'function'))) {
      operator = 'strictEqualObject';
    }
    const header = customMessage === undefined ? kReadableOperator[operator] : `${customMessage}`;
    if (actualLines.length === 1 && expectedLines.length === 1 &&
        actualLines[0] !== expectedLines[0]) {
      const actualRaw = actualLines[0];
      const expectedRaw = expectedLines[0];
      const inputLength = actualRaw.length + expectedRaw.length;
      if (inputLength <= kMaxShortLength) {
        if ((typeof actual !== 'object' || actual === null) &&
            (typeof expected !== 'object' || expected === null) &&
            (actual !== 0 || expected !== 0)) {
          return `${header}\n\n${actualLines[0]} !== ${expectedLines[0]}\n`;
        }
      } else if (operator !== 'strictEqualObject') {
        if (inputLength < 80) {
          while (actualRaw[i] === expectedRaw[i]) i++;
          if (i > 2) {
            indicator = `\n  ${stringRepeat(' ', i)}^`;
            i = 0;
          }
        }
      }
    }
    let a = actualLines[actualLines.length - 1];
    let b = expectedLines[expectedLines.length - 1];
    while (a === b) {
      if (i++ < 3) end = `\n  ${a}${end}`;
      else other = a;
      arrayPop(actualLines);
      arrayPop(expectedLines);
      if (actualLines.length === 0 || expectedLines.length === 0) break;
      a = actualLines[actualLines.length - 1];
      b = expectedLines[expectedLines.length - 1];
    }
    const maxLines = mathMax(actualLines.length, expectedLines.length);
    if (maxLines === 0) {
      const lines = stringSplit(actualInspected, '\n');
      if (lines.length > 50) {
        lines[46] = '...';
        while (lines.length > 47) arrayPop(lines);
      }
      return `${kReadableOperator.notIdentical}\n\n${arrayJoin(lines, '\n')}\n`;
    }
    if (i >= 5) {
      end = `\n...${end}`;
      skipped = true;
    }
    if (other !== '') {
      end = `\n  ${other}${end}`;
      other = '';
    }
    let printedLines = 0;
    let identical = 0;
    const msg = `${header}\n+ actual - expected`;
    const skippedMsg = ' ... Lines skipped';
    let lines = actualLines;
    let plusMinus = '+';
    let maxLength = expectedLines.length;
    if (actualLines.length < maxLines) {
      lines = expectedLines;
      plusMinus = '-';
      maxLength = actualLines.length;
    }
    // The identical lines before a difference: two, or the last two after "...".
    const flushIdentical = (from) => {
      if (identical > 2) {
        if (identical > 3) {
          if (identical > 4) {
            if (identical === 5) {
              res += `\n  ${from[i - 3]}`;
              printedLines++;
            } else {
              res += '\n...';
              skipped = true;
            }
          }
          res += `\n  ${from[i - 2]}`;
          printedLines++;
        }
        res += `\n  ${from[i - 1]}`;
        printedLines++;
      }
      identical = 0;
    };
    for (i = 0; i < maxLines; i++) {
      if (maxLength < i + 1) {
        flushIdentical(lines);
        if (lines === actualLines) res += `\n${plusMinus} ${lines[i]}`;
        else other += `\n${plusMinus} ${lines[i]}`;
        printedLines++;
      } else {
        const expectedLine = expectedLines[i];
        let actualLine = actualLines[i];
        let divergingLines = actualLine !== expectedLine &&
          (!stringEndsWith(actualLine, ',') || stringSlice(actualLine, 0, -1) !== expectedLine);
        if (divergingLines && stringEndsWith(expectedLine, ',') &&
            stringSlice(expectedLine, 0, -1) === actualLine) {
          divergingLines = false;
          actualLine += ',';
        }
        if (divergingLines) {
          flushIdentical(actualLines);
          res += `\n+ ${actualLine}`;
          other += `\n- ${expectedLine}`;
          printedLines += 2;
        } else {
          res += other;
          other = '';
          identical++;
          if (identical <= 2) {
            res += `\n  ${actualLine}`;
            printedLines++;
          }
        }
      }
      if (printedLines > 50 && i < maxLines - 2) {
        return `${msg}${skippedMsg}\n${res}\n...${other}\n...`;
      }
    }
    return `${msg}${skipped ? skippedMsg : ''}\n${res}${other}${end}${indicator}`;
  }

  function addEllipsis(string) {
    const lines = stringSplit(string, '\n', 11);
    if (lines.length > 10) {
      lines.length = 10;
      return `${arrayJoin(lines, '\n')}\n...`;
    } else if (string.length > 512) {
      return `${stringSlice(string, 512)}...`;
    }
    return string;
  }

  function copyError(source) {
    const target = objectAssign({ __proto__: getPrototypeOf(source) }, source);
    defineProperty(target, 'message', hidden(source.message));
    if (hasOwn(source, 'cause')) defineProperty(target, 'cause', hidden(source.cause));
    return target;
  }

  class AssertionError extends ErrorCtor {
    constructor(options) {
      validateObject(options, 'options');
      const { message, operator } = options;
      let { actual, expected } = options;
      if (message != null) {
        if (operator === 'deepStrictEqual' || operator === 'strictEqual') {
          super(createErrDiff(actual, expected, operator, message));
        } else {
          super(StringCtor(message));
        }
      } else {
        if (typeof actual === 'object' && actual !== null && typeof expected === 'object' &&
            expected !== null && 'stack' in actual && actual instanceof ErrorCtor &&
            'stack' in expected && expected instanceof ErrorCtor) {
          actual = copyError(actual);
          expected = copyError(expected);
        }
        if (operator === 'deepStrictEqual' || operator === 'strictEqual') {
          super(createErrDiff(actual, expected, operator));
        } else if (operator === 'notDeepStrictEqual' || operator === 'notStrictEqual') {
          let base = kReadableOperator[operator];
          const res = stringSplit(inspectValue(actual), '\n');
          if (operator === 'notStrictEqual' &&
              ((typeof actual === 'object' && actual !== null) || typeof actual === 'function')) {
            base = kReadableOperator.notStrictEqualObject;
          }
          if (res.length > 50) {
            res[46] = '...';
            while (res.length > 47) arrayPop(res);
          }
          if (res.length === 1) super(`${base}${res[0].length > 5 ? '\n\n' : ' '}${res[0]}`);
          else super(`${base}\n\n${arrayJoin(res, '\n')}\n`);
        } else {
          let res = inspectValue(actual);
          let other = inspectValue(expected);
          const knownOperator = kReadableOperator[operator];
          if (operator === 'notDeepEqual' && res === other) {
            res = `${knownOperator}\n\n${res}`;
            if (res.length > 1024) res = `${stringSlice(res, 0, 1021)}...`;
            super(res);
          } else {
            if (res.length > 512) res = `${stringSlice(res, 0, 509)}...`;
            if (other.length > 512) other = `${stringSlice(other, 0, 509)}...`;
            if (operator === 'deepEqual') {
              res = `${knownOperator}\n\n${res}\n\nshould loosely deep-equal\n\n`;
            } else {
              const newOp = kReadableOperator[`${operator}Unequal`];
              if (newOp) res = `${newOp}\n\n${res}\n\nshould not loosely deep-equal\n\n`;
              else other = ` ${operator} ${other}`;
            }
            super(`${res}${other}`);
          }
        }
      }
      this.generatedMessage = !message;
      defineProperty(this, 'name', hidden('AssertionError [ERR_ASSERTION]'));
      this.code = 'ERR_ASSERTION';
      this.actual = actual;
      this.expected = expected;
      this.operator = operator;
      ErrorCtor.captureStackTrace(this);
      trimInternalFrames(this);
      this.name = 'AssertionError';
    }

    toString() {
      return `${this.name} [${this.code}]: ${this.message}`;
    }

    [SymbolCtor.for('nodejs.util.inspect.custom')](recurseTimes, ctx) {
      const tmpActual = this.actual;
      const tmpExpected = this.expected;
      if (typeof this.actual === 'string') this.actual = addEllipsis(this.actual);
      if (typeof this.expected === 'string') this.expected = addEllipsis(this.expected);
      const result = inspect(this, { ...ctx, customInspect: false, depth: 0 });
      this.actual = tmpActual;
      this.expected = tmpExpected;
      return result;
    }
  }

  const missingArgs = () => nodeError(TypeErrorCtor, 'ERR_MISSING_ARGS',
    'The "actual" and "expected" arguments must be specified');

  function innerFail(obj) {
    if (obj.message instanceof ErrorCtor) throw obj.message;
    throw new AssertionError(obj);
  }

  let failWarned = false;
  function fail(actual, expected, message, operator) {
    const argsLen = arguments.length;
    let internalMessage = false;
    if (actual == null && argsLen <= 1) {
      internalMessage = true;
      message = 'Failed';
    } else if (argsLen === 1) {
      message = actual;
      actual = undefined;
    } else {
      if (!failWarned) {
        failWarned = true;
        emitWarning('assert.fail() with more than one argument is deprecated. ' +
          'Please use assert.strictEqual() instead or only pass a message.',
        'DeprecationWarning', 'DEP0094');
      }
      if (argsLen === 2) operator = '!=';
    }
    if (message instanceof ErrorCtor) throw message;
    const err = new AssertionError({
      actual, expected, operator: operator === undefined ? 'fail' : operator, message,
    });
    if (internalMessage) err.generatedMessage = true;
    throw err;
  }

  // assert.ok without a message: Node quotes the call's source text, which the sandbox
  // does not read back; it words it as Node does when the source cannot be found.
  function innerOk(argLen, value, message) {
    if (value) return;
    let generatedMessage = false;
    if (argLen === 0) {
      generatedMessage = true;
      message = 'No value argument passed to `assert.ok()`';
    } else if (message instanceof ErrorCtor) {
      throw message;
    } else if (message == null) {
      generatedMessage = true;
    }
    const err = new AssertionError({ actual: value, expected: true, message, operator: '==' });
    err.generatedMessage = generatedMessage;
    throw err;
  }

  class Comparison {
    constructor(obj, keys, actual) {
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (key in obj) {
          if (actual !== undefined && typeof actual[key] === 'string' && isRegExp(obj[key]) &&
              regExpExec(obj[key], actual[key]) !== null) {
            this[key] = actual[key];
          } else {
            this[key] = obj[key];
          }
        }
      }
    }
  }

  function compareExceptionKey(actual, expected, key, message, keys, fn) {
    if (!(key in actual) || !isDeepStrictEqual(actual[key], expected[key])) {
      if (!message) {
        const a = new Comparison(actual, keys);
        const b = new Comparison(expected, keys, actual);
        const err = new AssertionError({ actual: a, expected: b, operator: 'deepStrictEqual' });
        err.actual = actual;
        err.expected = expected;
        err.operator = fn.name;
        throw err;
      }
      innerFail({ actual, expected, message, operator: fn.name });
    }
  }

  function expectedException(actual, expected, message, fn) {
    let generatedMessage = false;
    let throwError = false;
    if (typeof expected !== 'function') {
      if (isRegExp(expected)) {
        const str = StringCtor(actual);
        if (regExpExec(expected, str) !== null) return;
        if (!message) {
          generatedMessage = true;
          message = 'The input did not match the regular expression ' +
            `${inspect(expected)}. Input:\n\n${inspect(str)}\n`;
        }
        throwError = true;
      } else if (typeof actual !== 'object' || actual === null) {
        const err = new AssertionError({ actual, expected, message, operator: 'deepStrictEqual' });
        err.operator = fn.name;
        throw err;
      } else {
        const keys = objectKeys(expected);
        if (expected instanceof ErrorCtor) {
          arrayPush(keys, 'name', 'message');
        } else if (keys.length === 0) {
          throw invalidArgValue('error', expected, 'may not be an empty object');
        }
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          if (typeof actual[key] === 'string' && isRegExp(expected[key]) &&
              regExpExec(expected[key], actual[key]) !== null) {
            continue;
          }
          compareExceptionKey(actual, expected, key, message, keys, fn);
        }
        return;
      }
    } else if (expected.prototype !== undefined && actual instanceof expected) {
      return;
    } else if (ErrorCtor.isPrototypeOf(expected)) {
      if (!message) {
        generatedMessage = true;
        message = `The error is expected to be an instance of "${expected.name}". Received `;
        if (isErrorLike(actual)) {
          const name = actual.constructor?.name || actual.name;
          if (expected.name === name) {
            message += 'an error with identical name but a different prototype.';
          } else {
            message += `"${name}"`;
          }
          if (actual.message) message += `\n\nError message:\n\n${actual.message}`;
        } else {
          message += `"${inspect(actual, { depth: -1 })}"`;
        }
      }
      throwError = true;
    } else {
      const res = reflectApply(expected, {}, [actual]);
      if (res !== true) {
        if (!message) {
          generatedMessage = true;
          const name = expected.name ? `"${expected.name}" ` : '';
          message = `The ${name}validation function is expected to return "true". Received ${
            inspect(res)}`;
          if (isErrorLike(actual)) message += `\n\nCaught error:\n\n${actual}`;
        }
        throwError = true;
      }
    }
    if (throwError) {
      const err = new AssertionError({ actual, expected, message, operator: fn.name });
      err.generatedMessage = generatedMessage;
      throw err;
    }
  }

  const NO_EXCEPTION = {};

  function getActual(fn) {
    validateFunction(fn, 'fn');
    try {
      fn();
    } catch (e) {
      return e;
    }
    return NO_EXCEPTION;
  }

  const checkIsPromise = (obj) => isPromise(obj) || (obj !== null && typeof obj === 'object' &&
    typeof obj.then === 'function' && typeof obj.catch === 'function');

  async function waitForActual(promiseFn) {
    let resultPromise;
    if (typeof promiseFn === 'function') {
      resultPromise = promiseFn();
      if (!checkIsPromise(resultPromise)) {
        const type = resultPromise?.constructor?.name ?
          `instance of ${resultPromise.constructor.name}` : `type ${typeof resultPromise}`;
        throw nodeError(TypeErrorCtor, 'ERR_INVALID_RETURN_VALUE', 'Expected instance of ' +
          `Promise to be returned from the "promiseFn" function but got ${type}.`);
      }
    } else if (checkIsPromise(promiseFn)) {
      resultPromise = promiseFn;
    } else {
      throw invalidArgType('promiseFn', 'of type function or an instance of Promise', promiseFn);
    }
    try {
      await resultPromise;
    } catch (e) {
      return e;
    }
    return NO_EXCEPTION;
  }

  const ambiguous = (reason) => nodeError(TypeErrorCtor, 'ERR_AMBIGUOUS_ARGUMENT',
    `The "error/message" argument is ambiguous. ${reason}`);
  const errorArgType = (error) =>
    invalidArgType('error', 'of type function or an instance of Error, RegExp, or Object', error);

  function expectsError(stackStartFn, actual, error, message, ...rest) {
    if (typeof error === 'string') {
      if (rest.length > 0 || arguments.length === 4) throw errorArgType(error);
      if (typeof actual === 'object' && actual !== null) {
        if (actual.message === error) {
          throw ambiguous(`The error message "${actual.message}" is identical to the message.`);
        }
      } else if (actual === error) {
        throw ambiguous(`The error "${actual}" is identical to the message.`);
      }
      message = error;
      error = undefined;
    } else if (error != null && typeof error !== 'object' && typeof error !== 'function') {
      throw errorArgType(error);
    }
    if (actual === NO_EXCEPTION) {
      let details = '';
      if (error?.name) details += ` (${error.name})`;
      details += message ? `: ${message}` : '.';
      const fnType = stackStartFn === assert.rejects ? 'rejection' : 'exception';
      innerFail({ actual: undefined, expected: error, operator: stackStartFn.name,
        message: `Missing expected ${fnType}${details}` });
    }
    if (!error) return;
    expectedException(actual, error, message, stackStartFn);
  }

  function hasMatchingError(actual, expected) {
    if (typeof expected !== 'function') {
      if (isRegExp(expected)) return regExpExec(expected, StringCtor(actual)) !== null;
      throw invalidArgType('expected', 'of type function or an instance of RegExp', expected);
    }
    if (expected.prototype !== undefined && actual instanceof expected) return true;
    if (ErrorCtor.isPrototypeOf(expected)) return false;
    return reflectApply(expected, {}, [actual]) === true;
  }

  function expectsNoError(stackStartFn, actual, error, message) {
    if (actual === NO_EXCEPTION) return;
    if (typeof error === 'string') {
      message = error;
      error = undefined;
    }
    if (!error || hasMatchingError(actual, error)) {
      const details = message ? `: ${message}` : '.';
      const fnType = stackStartFn === assert.doesNotReject ? 'rejection' : 'exception';
      innerFail({ actual, expected: error, operator: stackStartFn.name,
        message: `Got unwanted ${fnType}${details}\nActual message: "${actual?.message}"` });
    }
    throw actual;
  }

  function internalMatch(string, regexp, message, fn) {
    if (!isRegExp(regexp)) throw invalidArgType('regexp', 'an instance of RegExp', regexp);
    const match = fn === assert.match;
    if (typeof string !== 'string' || (regExpExec(regexp, string) !== null) !== match) {
      if (message instanceof ErrorCtor) throw message;
      const generatedMessage = !message;
      message = message || (typeof string !== 'string' ?
        `The "string" argument must be of type string. Received type ${typeof string} (${
          inspect(string)})` :
        `${match ? 'The input did not match the regular expression ' :
          'The input was expected to not match the regular expression '}${
          inspect(regexp)}. Input:\n\n${inspect(string)}\n`);
      const err = new AssertionError({ actual: string, expected: regexp, message,
        operator: fn.name });
      err.generatedMessage = generatedMessage;
      throw err;
    }
  }

  // The comparisons: each fails with its operator unless pass(actual, expected).
  const looseEqual = (a, b) => a == b || (numberIsNaN(a) && numberIsNaN(b)); // eslint-disable-line eqeqeq
  const comparisons = {};
  const comparisonTable = [
    ['equal', '==', looseEqual],
    ['notEqual', '!=', (a, b) => !looseEqual(a, b)],
    ['deepEqual', 'deepEqual', (a, b) => isDeepEqual(a, b)],
    ['notDeepEqual', 'notDeepEqual', (a, b) => !isDeepEqual(a, b)],
    ['deepStrictEqual', 'deepStrictEqual', (a, b) => isDeepStrictEqual(a, b)],
    ['notDeepStrictEqual', 'notDeepStrictEqual', (a, b) => !isDeepStrictEqual(a, b)],
    ['strictEqual', 'strictEqual', objectIs],
    ['notStrictEqual', 'notStrictEqual', (a, b) => !objectIs(a, b)],
  ];
  for (let i = 0; i < comparisonTable.length; i++) {
    const [name, operator, pass] = comparisonTable[i];
    comparisons[name] = named(name, function (actual, expected, message) {
      if (arguments.length < 2) throw missingArgs();
      if (!pass(actual, expected)) innerFail({ actual, expected, message, operator });
    });
  }

  const assertMethods = {
    fail,
    AssertionError,
    ok(...args) {
      innerOk(args.length, ...args);
    },
    ...comparisons,
    throws(promiseFn, ...args) {
      expectsError(assert.throws, getActual(promiseFn), ...args);
    },
    async rejects(promiseFn, ...args) {
      expectsError(assert.rejects, await waitForActual(promiseFn), ...args);
    },
    doesNotThrow(fn, ...args) {
      expectsNoError(assert.doesNotThrow, getActual(fn), ...args);
    },
    async doesNotReject(fn, ...args) {
      expectsNoError(assert.doesNotReject, await waitForActual(fn), ...args);
    },
    ifError(err) {
      if (err === null || err === undefined) return;
      let message = 'ifError got unwanted exception: ';
      if (typeof err === 'object' && typeof err.message === 'string') {
        if (err.message.length === 0 && err.constructor) message += err.constructor.name;
        else message += err.message;
      } else {
        message += inspect(err);
      }
      throw new AssertionError({ actual: err, expected: null, operator: 'ifError', message });
    },
    match(string, regexp, message) {
      internalMatch(string, regexp, message, assert.match);
    },
    doesNotMatch(string, regexp, message) {
      internalMatch(string, regexp, message, assert.doesNotMatch);
    },
  };

  const assert = named('ok', function ok(...args) {
    innerOk(args.length, ...args);
  });
  for (const name of objectKeys(assertMethods)) assert[name] = assertMethods[name];
  const strict = named('strict', function strict(...args) {
    innerOk(args.length, ...args);
  });
  objectAssign(strict, assert, {
    equal: assert.strictEqual, deepEqual: assert.deepStrictEqual,
    notEqual: assert.notStrictEqual, notDeepEqual: assert.notDeepStrictEqual,
  });
  assert.strict = strict;
  strict.strict = strict;

  util.isDeepStrictEqual = isDeepStrictEqual;

  // ---------------------------------------------------------------------------
  // util, in Node's order of keys
  // ---------------------------------------------------------------------------

  const utilTail = {
    inherits, inspect, ...legacyChecks, log: utilLog, promisify, stripVTControlCharacters,
    toUSVString, types, TextDecoder: TextDecoderCtor, TextEncoder: TextEncoderCtor,
  };
  const utilModule = { _extend: util._extend, callbackify, debug: debuglog, debuglog, deprecate,
    format, formatWithOptions: util.formatWithOptions };
  for (const name of objectKeys(utilTail)) {
    utilModule[name] = utilTail[name];
    if (name === 'isBuffer') utilModule.isDeepStrictEqual = isDeepStrictEqual;
  }

  // ---------------------------------------------------------------------------
  // timers and timers/promises
  // ---------------------------------------------------------------------------

  const timersPromises = {
    setTimeout(delay, value, options = {}) {
      validateObject(options, 'options');
      return new PromiseCtor((resolve) => {
        const t = setTimeoutFn(resolve, delay, value);
        if (options.ref === false) t.unref();
      });
    },
    setImmediate(value, options = {}) {
      validateObject(options, 'options');
      return new PromiseCtor((resolve) => {
        const t = setImmediateFn(resolve, value);
        if (options.ref === false) t.unref();
      });
    },
    async *setInterval(delay, value, options = {}) {
      validateObject(options, 'options');
      let notYielded = 0;
      let wake;
      const t = setIntervalFn(() => {
        notYielded++;
        if (wake) {
          wake();
          wake = undefined;
        }
      }, delay);
      if (options.ref === false) t.unref();
      try {
        for (;;) {
          if (notYielded === 0) await new PromiseCtor((resolve) => { wake = resolve; });
          for (; notYielded > 0; notYielded--) yield value;
        }
      } finally {
        clearIntervalFn(t);
      }
    },
  };
  timersPromises.scheduler = {
    wait: named('wait', (delay, options) => timersPromises.setTimeout(delay, undefined, options)),
    yield: named('yield', () => timersPromises.setImmediate()),
  };
  defineProperty(setTimeoutFn, kPromisifyCustom, hidden(timersPromises.setTimeout));
  defineProperty(setImmediateFn, kPromisifyCustom, hidden(timersPromises.setImmediate));

  const timers = {
    setTimeout: setTimeoutFn, clearTimeout: clearTimeoutFn, setImmediate: setImmediateFn,
    clearImmediate: clearImmediateFn, setInterval: setIntervalFn, clearInterval: clearIntervalFn,
    promises: timersPromises,
  };

  // ---------------------------------------------------------------------------
  // The globals, and the modules for require() and import (fs.js adds its own)
  // ---------------------------------------------------------------------------

  defineProperty(globalThis, 'process', hidden(process));

  const modules = {
    __proto__: null,
    assert, 'assert/strict': strict, console: consoleObject, events: EventEmitter, path,
    'path/posix': path, process, querystring, string_decoder: stringDecoder, timers,
    'timers/promises': timersPromises, url, util: utilModule, 'util/types': types,
  };

  // The completion value of this script, for fs.js (through guest/main.c).
  return freeze({
    modules: freeze(modules), path, fileURLToPath, pathToFileURL, process,
    scriptPath: () => hostScript(),
  });
})();
