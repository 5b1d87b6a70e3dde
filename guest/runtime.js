// capsa guest runtime: the sandbox's global `console`, printing what Node.js v20 prints
// (util.format and util.inspect with their default options). Evaluated once per context
// as a global script; its completion value { formatError, inspect, format,
// formatWithOptions, types } is for the host and for node.js's util.
//
// Where QuickJS cannot show what Node shows, the output is the nearest honest one:
// - Promise state is read through the optional host hooks __capsa.promiseState(p)
//   (JS_PromiseState: -1 not a promise, 0 pending, 1 fulfilled, 2 rejected) and
//   __capsa.promiseResult(p) (JS_PromiseResult). Without them a promise prints as
//   `Promise { <unknown> }`, and objects that inherit from Promise.prototype count as promises.
// - Proxies cannot be told apart from their targets: a proxy is inspected through its traps,
//   where Node shows the target without running any trap.
// - Map and Set iterators list the items still to come through the host hook
//   __capsa.iteratorItems(it) (JS_GetMapIteratorItems), which does not advance them;
//   without it they print as `[Map Iterator] { <items unknown> }`.
// - The engine writes `err.stack` as V8 does: the "Name: message" line, then
//   Error.stackTraceLimit frames. Frame lines keep QuickJS's form (no column).
// - Own properties of functions differ from V8's (no `arguments`/`caller`), seen with %o.
// - Display widths (array grouping, table cells) use a table of wide and zero-width code
//   points instead of ICU, which agrees for common text and may differ for rare symbols.
// - console.time* uses Date.now(): durations have millisecond resolution.
// - Warnings that Node emits with process.emitWarning are written to stderr as
//   "Warning: ..." lines, without Node's "(node:PID)" prefix.
// - Colors are never used, as for Node writing to a pipe: the `colors` option is ignored,
//   and so is `numericSeparator`.

(function () {
  'use strict';

  // ---------------------------------------------------------------------------
  // Host bridge
  // ---------------------------------------------------------------------------

  const host = globalThis.__capsa;
  delete globalThis.__capsa;
  const hostWrite = host.write;
  const hostPromiseState =
    typeof host.promiseState === 'function' ? host.promiseState : undefined;
  const hostPromiseResult =
    typeof host.promiseResult === 'function' ? host.promiseResult : undefined;
  const hostIteratorItems =
    typeof host.iteratorItems === 'function' ? host.iteratorItems : undefined;

  // ---------------------------------------------------------------------------
  // Intrinsics, captured before user code can replace them
  // ---------------------------------------------------------------------------

  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const getter = (proto, name) =>
    uncurry(Object.getOwnPropertyDescriptor(proto, name).get);

  const {
    defineProperty, getOwnPropertyDescriptor, getOwnPropertyNames,
    getOwnPropertySymbols, getPrototypeOf, keys: objectKeys, is: objectIs,
  } = Object;
  const isArray = Array.isArray;
  const ErrorConstructor = Error;
  const RangeErrorConstructor = RangeError;
  const hasOwn = uncurry(Object.prototype.hasOwnProperty);
  const propertyIsEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
  const objectToString = uncurry(Object.prototype.toString);
  const functionToString = uncurry(Function.prototype.toString);
  const errorToString = uncurry(Error.prototype.toString);
  const symbolToString = uncurry(Symbol.prototype.toString);
  const dateGetTime = uncurry(Date.prototype.getTime);
  const dateToISOString = uncurry(Date.prototype.toISOString);
  const dateToString = uncurry(Date.prototype.toString);
  const regExpToString = uncurry(RegExp.prototype.toString);
  const regExpSource = getter(RegExp.prototype, 'source');
  const mapSize = getter(Map.prototype, 'size');
  const mapEntries = uncurry(Map.prototype.entries);
  const setSize = getter(Set.prototype, 'size');
  const setValues = uncurry(Set.prototype.values);
  const weakMapHas = uncurry(WeakMap.prototype.has);
  const weakSetHas = uncurry(WeakSet.prototype.has);
  const arrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength');
  const sharedArrayBufferByteLength = typeof SharedArrayBuffer === 'function' ?
    getter(SharedArrayBuffer.prototype, 'byteLength') : undefined;
  const dataViewByteLength = getter(DataView.prototype, 'byteLength');
  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
  const typedArrayTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  const typedArrayLength = getter(TypedArrayPrototype, 'length');
  const typedArrayConstructors = {
    Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array,
    Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
  };
  const boxedPrimitiveTypes = [
    ['Number', uncurry(Number.prototype.valueOf)],
    ['String', uncurry(String.prototype.valueOf)],
    ['Boolean', uncurry(Boolean.prototype.valueOf)],
    ['BigInt', uncurry(BigInt.prototype.valueOf)],
    ['Symbol', uncurry(Symbol.prototype.valueOf)],
  ];
  const AsyncFunctionPrototype = getPrototypeOf(async function () {});
  const GeneratorFunctionPrototype = getPrototypeOf(function* () {});
  const AsyncGeneratorFunctionPrototype = getPrototypeOf(async function* () {});

  // Constructor names that count as built in (Node takes them from its own global object).
  const builtInObjects = new Set(
    getOwnPropertyNames(globalThis).filter((name) => /^[A-Z][a-zA-Z0-9]+$/.test(name)));

  const customInspectSymbol = Symbol.for('nodejs.util.inspect.custom');

  // ---------------------------------------------------------------------------
  // Type checks: brand checks that neither run user code nor trust toStringTag
  // where the engine offers better.
  // ---------------------------------------------------------------------------

  const passes = (check) => (value) => {
    try {
      check(value);
      return true;
    } catch {
      return false;
    }
  };
  const builtinTag = (value) => objectToString(value).slice(8, -1);

  const isMap = passes(mapSize);
  const isSet = passes(setSize);
  const isWeakMap = passes((v) => weakMapHas(v, {}));
  const isWeakSet = passes((v) => weakSetHas(v, {}));
  const isDate = passes(dateGetTime);
  const isDataView = passes(dataViewByteLength);
  const isArrayBuffer = passes(arrayBufferByteLength);
  const isSharedArrayBuffer = sharedArrayBufferByteLength === undefined ?
    () => false : passes(sharedArrayBufferByteLength);
  const isRegExp = (v) => builtinTag(v) === 'RegExp' && passes(regExpSource)(v);
  // Node's isError: a native error, or an object that inherits from Error.prototype.
  const isError = (v) => builtinTag(v) === 'Error' || isInstanceof(v, ErrorConstructor);
  const isArgumentsObject = (v) => builtinTag(v) === 'Arguments';
  const isMapIterator = (v) => builtinTag(v) === 'Map Iterator';
  const isSetIterator = (v) => builtinTag(v) === 'Set Iterator';
  const isPromise = hostPromiseState !== undefined ?
    (v) => hostPromiseState(v) >= 0 :
    (v) => builtinTag(v) === 'Promise';
  const isTypedArray = (v) => typedArrayTag(v) !== undefined;
  const isAsyncFunction = (fn) => {
    const proto = getPrototypeOf(fn);
    return proto === AsyncFunctionPrototype || proto === AsyncGeneratorFunctionPrototype;
  };
  const isGeneratorFunction = (fn) => {
    const proto = getPrototypeOf(fn);
    return proto === GeneratorFunctionPrototype || proto === AsyncGeneratorFunctionPrototype;
  };

  // Returns [type name, primitive value] for Number/String/Boolean/BigInt/Symbol objects.
  function boxedPrimitive(value) {
    for (const [type, valueOf] of boxedPrimitiveTypes) {
      try {
        return [type, valueOf(value)];
      } catch {
        // Not this type; try the next one.
      }
    }
    return undefined;
  }

  // Exhausted stack space, as the engine reports it (V8's RangeError).
  function isStackOverflowError(err) {
    return err instanceof RangeErrorConstructor && err.message === 'Maximum call stack size exceeded';
  }

  // ---------------------------------------------------------------------------
  // Strings: quoting, escaping and display width
  // ---------------------------------------------------------------------------

  // Escapes for the code units 0x00-0x9f that inspect never prints raw.
  const meta = [];
  for (let i = 0; i < 0xa0; i++) {
    if (i < 0x20 || i >= 0x7f) {
      meta[i] = `\\x${i.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  Object.assign(meta, { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 39: "\\'", 92: '\\\\' });

  // Escapes control characters, backslashes, lone surrogates and the code unit `quote`
  // (pass -1 to leave quotes alone).
  function escapeChars(str, quote) {
    let result = '';
    let last = 0;
    for (let i = 0; i < str.length; i++) {
      const point = str.charCodeAt(i);
      if (point === quote || point === 92 || point < 32 || (point > 126 && point < 160)) {
        result += str.slice(last, i) + meta[point];
        last = i + 1;
      } else if (point >= 0xd800 && point <= 0xdfff) {
        if (point <= 0xdbff && i + 1 < str.length) {
          const next = str.charCodeAt(i + 1);
          if (next >= 0xdc00 && next <= 0xdfff) {
            i++;
            continue;
          }
        }
        result += `${str.slice(last, i)}\\u${point.toString(16)}`;
        last = i + 1;
      }
    }
    return last === 0 ? str : result + str.slice(last);
  }

  // Quotes a string as Node does: single quotes, unless the text holds single quotes and
  // double quotes or backticks would avoid escaping them.
  function strEscape(str) {
    let quote = "'";
    if (str.includes("'")) {
      if (!str.includes('"')) {
        quote = '"';
      } else if (!str.includes('`') && !str.includes('${')) {
        quote = '`';
      }
    }
    return quote + escapeChars(str, quote === "'" ? 39 : -1) + quote;
  }

  const ansiRegExp = new RegExp(
    '[\\u001B\\u009B][[\\]()#;?]*' +
    '(?:(?:(?:(?:;[-a-zA-Z\\d\\/\\#&.:=?%@~_]+)*' +
    '|[a-zA-Z\\d]+(?:;[-a-zA-Z\\d\\/\\#&.:=?%@~_]*)*)?' +
    '(?:\\u0007|\\u001B\\u005C|\\u009C))' +
    '|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?' +
    '[\\dA-PR-TZcf-nq-uy=><~]))', 'g');

  function isFullWidthCodePoint(code) {
    return code >= 0x1100 && (
      code <= 0x115f ||
      code === 0x2329 || code === 0x232a ||
      (code >= 0x2e80 && code <= 0x3247 && code !== 0x303f) ||
      (code >= 0x3250 && code <= 0x4dbf) ||
      (code >= 0x4e00 && code <= 0xa4c6) ||
      (code >= 0xa960 && code <= 0xa97c) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe10 && code <= 0xfe19) ||
      (code >= 0xfe30 && code <= 0xfe6b) ||
      (code >= 0xff01 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      (code >= 0x1b000 && code <= 0x1b001) ||
      (code >= 0x1f200 && code <= 0x1f251) ||
      (code >= 0x1f300 && code <= 0x1f64f) ||
      (code >= 0x1f900 && code <= 0x1f9ff) ||
      (code >= 0x20000 && code <= 0x3fffd));
  }

  function isZeroWidthCodePoint(code) {
    return code <= 0x1f ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x300 && code <= 0x36f) ||
      (code >= 0x200b && code <= 0x200f) ||
      (code >= 0x20d0 && code <= 0x20ff) ||
      (code >= 0xfe00 && code <= 0xfe0f) ||
      (code >= 0xfe20 && code <= 0xfe2f) ||
      (code >= 0xe0100 && code <= 0xe01ef);
  }

  // Number of terminal columns the string takes.
  function getStringWidth(str, removeControlChars = true) {
    if (removeControlChars) {
      str = str.replace(ansiRegExp, '');
    }
    let width = 0;
    let i = 0;
    // ASCII text is counted directly; control characters take no column.
    for (; i < str.length; i++) {
      const code = str.charCodeAt(i);
      if (code >= 127) {
        break;
      }
      width += code >= 32 ? 1 : 0;
    }
    if (i < str.length) {
      for (const char of str.slice(i).normalize('NFC')) {
        const code = char.codePointAt(0);
        if (isFullWidthCodePoint(code)) {
          width += 2;
        } else if (!isZeroWidthCodePoint(code)) {
          width++;
        }
      }
    }
    return width;
  }

  // ---------------------------------------------------------------------------
  // inspect: options and entry point
  // ---------------------------------------------------------------------------

  const defaultOptions = {
    showHidden: false,
    depth: 2,
    colors: false,
    customInspect: true,
    showProxy: false,
    maxArrayLength: 100,
    maxStringLength: 10000,
    breakLength: 80,
    compact: 3,
    sorted: false,
    getters: false,
    numericSeparator: false,
  };
  const optionNames = objectKeys(defaultOptions);

  const kObjectType = 0;
  const kArrayType = 1;
  const kArrayExtrasType = 2;
  const kMinLineLength = 16;

  const keyStrRegExp = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const numberRegExp = /^(0|[1-9][0-9]*)$/;
  const classRegExp = /^(\s+[^(]*?)\s*{/;
  const stripCommentsRegExp = /(\/\/.*?\n)|(\/\*(.|\n)*?\*\/)/g;

  const stylize = (str) => str;

  // The options in effect, as custom inspect functions and nested inspect calls see them.
  function optionsOf(ctx) {
    const options = { stylize };
    for (const name of optionNames) {
      options[name] = ctx[name];
    }
    return ctx.userOptions === undefined ? options : { ...options, ...ctx.userOptions };
  }

  // util.inspect(value, options): the text Node shows for `value`.
  function inspect(value, opts) {
    const ctx = {
      budget: {},
      indentationLvl: 0,
      seen: [],
      currentDepth: 0,
      circular: undefined,
      userOptions: undefined,
      ...defaultOptions,
    };
    if (opts !== null && typeof opts === 'object') {
      for (const key of objectKeys(opts)) {
        if (hasOwn(defaultOptions, key)) {
          ctx[key] = opts[key];
        } else if (ctx.userOptions === undefined) {
          ctx.userOptions = opts;
        }
      }
    } else if (typeof opts === 'boolean') {
      ctx.showHidden = opts;
    }
    if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
    if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
    return formatValue(ctx, value, 0);
  }
  inspect.custom = customInspectSymbol;

  const depthExceeded = (ctx, recurseTimes) => ctx.depth !== null && recurseTimes > ctx.depth;

  // ---------------------------------------------------------------------------
  // inspect: primitives
  // ---------------------------------------------------------------------------

  function formatNumber(number) {
    return objectIs(number, -0) ? '-0' : `${number}`;
  }

  const formatBigInt = (bigint) => `${bigint}n`;

  function formatPrimitive(value, ctx) {
    switch (typeof value) {
      case 'string': {
        let trailer = '';
        if (value.length > ctx.maxStringLength) {
          const remaining = value.length - ctx.maxStringLength;
          value = value.slice(0, ctx.maxStringLength);
          trailer = `... ${remaining} more character${remaining > 1 ? 's' : ''}`;
        }
        // Long strings are split after their line breaks, one quoted piece per line.
        if (ctx.compact !== true &&
            value.length > kMinLineLength &&
            value.length > ctx.breakLength - ctx.indentationLvl - 4) {
          return value.split(/(?<=\n)/).map(strEscape)
            .join(` +\n${' '.repeat(ctx.indentationLvl + 2)}`) + trailer;
        }
        return strEscape(value) + trailer;
      }
      case 'number': return formatNumber(value);
      case 'bigint': return formatBigInt(value);
      case 'boolean': return `${value}`;
      case 'undefined': return 'undefined';
      default: return symbolToString(value);
    }
  }

  // ---------------------------------------------------------------------------
  // inspect: objects
  // ---------------------------------------------------------------------------

  // Formats any value; `ctx.indentationLvl` must already count the caller's indentation.
  function formatValue(ctx, value, recurseTimes, typedArray) {
    if (typeof value !== 'object' && typeof value !== 'function') {
      return formatPrimitive(value, ctx);
    }
    if (value === null) {
      return 'null';
    }

    if (ctx.customInspect) {
      const custom = value[customInspectSymbol];
      if (typeof custom === 'function' && custom !== inspect && !isPrototypeObject(value)) {
        const depth = ctx.depth === null ? null : ctx.depth - recurseTimes;
        const ret = custom.call(value, depth, optionsOf(ctx), inspect);
        if (ret !== value) {
          if (typeof ret !== 'string') {
            return formatValue(ctx, ret, recurseTimes);
          }
          return ret.replace(/\n/g, `\n${' '.repeat(ctx.indentationLvl)}`);
        }
      }
    }

    if (ctx.seen.includes(value)) {
      if (ctx.circular === undefined) {
        ctx.circular = new Map();
      }
      let index = ctx.circular.get(value);
      if (index === undefined) {
        index = ctx.circular.size + 1;
        ctx.circular.set(value, index);
      }
      return `[Circular *${index}]`;
    }

    return formatRaw(ctx, value, recurseTimes, typedArray);
  }

  // Whether `value` is the prototype of its own `constructor` (custom inspect functions
  // are not called on prototypes).
  function isPrototypeObject(value) {
    const descriptor = getOwnPropertyDescriptor(value, 'constructor');
    return descriptor !== undefined && typeof descriptor.value === 'function' &&
      descriptor.value.prototype === value;
  }

  function isInstanceof(object, constructor) {
    try {
      return object instanceof constructor;
    } catch {
      return false;
    }
  }

  // The name of the nearest constructor in the prototype chain that `obj` is an instance
  // of; null for objects whose chain ends without one (null prototype). With showHidden,
  // collects the user-defined prototype properties into `protoProps`.
  function getConstructorName(obj, ctx, recurseTimes, protoProps) {
    let firstProto;
    const start = obj;
    while (obj) {
      const descriptor = getOwnPropertyDescriptor(obj, 'constructor');
      if (descriptor !== undefined &&
          typeof descriptor.value === 'function' &&
          descriptor.value.name !== '' &&
          isInstanceof(start, descriptor.value)) {
        if (protoProps !== undefined &&
            (firstProto !== obj || !builtInObjects.has(descriptor.value.name))) {
          addPrototypeProperties(ctx, start, firstProto || start, recurseTimes, protoProps);
        }
        return String(descriptor.value.name);
      }
      obj = getPrototypeOf(obj);
      if (firstProto === undefined) {
        firstProto = obj;
      }
    }
    if (firstProto === null) {
      return null;
    }
    // V8 would name the function that made the object; the built-in tag is the nearest
    // thing visible from JavaScript.
    const res = builtinTag(start);
    if (depthExceeded(ctx, recurseTimes)) {
      return `${res} <Complex prototype>`;
    }
    const protoConstructor = getConstructorName(firstProto, ctx, recurseTimes + 1, protoProps);
    if (protoConstructor === null) {
      const options = { ...optionsOf(ctx), customInspect: false, depth: -1 };
      return `${res} <${inspect(firstProto, options)}>`;
    }
    return `${res} <${protoConstructor}>`;
  }

  // With showHidden, adds to `output` the non-function properties that user-defined
  // prototypes (up to three levels) give to `main`.
  function addPrototypeProperties(ctx, main, obj, recurseTimes, output) {
    let depth = 0;
    let keys;
    let keySet;
    do {
      if (depth !== 0 || main === obj) {
        obj = getPrototypeOf(obj);
        if (obj === null) {
          return;
        }
        const descriptor = getOwnPropertyDescriptor(obj, 'constructor');
        if (descriptor !== undefined &&
            typeof descriptor.value === 'function' &&
            builtInObjects.has(descriptor.value.name)) {
          return;
        }
      }
      if (depth === 0) {
        keySet = new Set();
      } else {
        keys.forEach((key) => keySet.add(key));
      }
      keys = Reflect.ownKeys(obj);
      ctx.seen.push(main);
      for (const key of keys) {
        if (key === 'constructor' || hasOwn(main, key) || (depth !== 0 && keySet.has(key))) {
          continue;
        }
        const desc = getOwnPropertyDescriptor(obj, key);
        if (typeof desc.value === 'function') {
          continue;
        }
        output.push(formatProperty(ctx, obj, recurseTimes, key, kObjectType, desc, main));
      }
      ctx.seen.pop();
    } while (++depth !== 3);
  }

  function getPrefix(constructor, tag, fallback, size = '') {
    if (constructor === null) {
      if (tag !== '' && fallback !== tag) {
        return `[${fallback}${size}: null prototype] [${tag}] `;
      }
      return `[${fallback}${size}: null prototype] `;
    }
    if (tag !== '' && constructor !== tag) {
      return `${constructor}${size} [${tag}] `;
    }
    return `${constructor}${size} `;
  }

  function getCtxStyle(value, constructor, tag) {
    let fallback = '';
    if (constructor === null) {
      fallback = builtinTag(value);
      if (fallback === tag) {
        fallback = 'Object';
      }
    }
    return getPrefix(constructor, tag, fallback);
  }

  // Own enumerable keys (all own keys with showHidden), symbols last.
  function getKeys(value, showHidden) {
    const symbols = getOwnPropertySymbols(value);
    if (showHidden) {
      return getOwnPropertyNames(value).concat(symbols);
    }
    return objectKeys(value).concat(symbols.filter((key) => propertyIsEnumerable(value, key)));
  }

  function isArrayIndex(key) {
    return numberRegExp.test(key) && +key < 2 ** 32 - 1;
  }

  // Keys of an array or typed array other than its indices. Own keys list the indices
  // first, so a binary search finds where the other keys start.
  function getNonIndexKeys(value, showHidden) {
    const names = showHidden ? getOwnPropertyNames(value) : objectKeys(value);
    let low = 0;
    let high = names.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (isArrayIndex(names[mid])) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    const symbols = getOwnPropertySymbols(value);
    return names.slice(low).concat(
      showHidden ? symbols : symbols.filter((key) => propertyIsEnumerable(value, key)));
  }

  // Formats an object: picks braces, a base text and an entry formatter by type, then
  // lays the entries out with reduceToSingleString.
  function formatRaw(ctx, value, recurseTimes, typedArray) {
    let keys;
    let protoProps;
    if (ctx.showHidden && !depthExceeded(ctx, recurseTimes)) {
      protoProps = [];
    }
    const constructor = getConstructorName(value, ctx, recurseTimes, protoProps);
    if (protoProps !== undefined && protoProps.length === 0) {
      protoProps = undefined;
    }

    let tag = value[Symbol.toStringTag];
    // Only show the tag when it is not printed as a property anyway.
    if (typeof tag !== 'string' ||
        (tag !== '' &&
         (ctx.showHidden ? hasOwn : propertyIsEnumerable)(value, Symbol.toStringTag))) {
      tag = '';
    }
    let base = '';
    let formatter = () => [];
    let braces;
    let noIterator = true;
    let extrasType = kObjectType;

    if (Symbol.iterator in value || constructor === null) {
      noIterator = false;
      if (isArray(value)) {
        const prefix = (constructor !== 'Array' || tag !== '') ?
          getPrefix(constructor, tag, 'Array', `(${value.length})`) : '';
        keys = getNonIndexKeys(value, ctx.showHidden);
        braces = [`${prefix}[`, ']'];
        if (value.length === 0 && keys.length === 0 && protoProps === undefined) {
          return `${braces[0]}]`;
        }
        extrasType = kArrayExtrasType;
        formatter = formatArray;
      } else if (isSet(value)) {
        const size = setSize(value);
        const prefix = getPrefix(constructor, tag, 'Set', `(${size})`);
        keys = getKeys(value, ctx.showHidden);
        formatter = formatSet;
        if (size === 0 && keys.length === 0 && protoProps === undefined) {
          return `${prefix}{}`;
        }
        braces = [`${prefix}{`, '}'];
      } else if (isMap(value)) {
        const size = mapSize(value);
        const prefix = getPrefix(constructor, tag, 'Map', `(${size})`);
        keys = getKeys(value, ctx.showHidden);
        formatter = formatMap;
        if (size === 0 && keys.length === 0 && protoProps === undefined) {
          return `${prefix}{}`;
        }
        braces = [`${prefix}{`, '}'];
      } else if (isTypedArray(value)) {
        keys = getNonIndexKeys(value, ctx.showHidden);
        let bound = value;
        let fallback = '';
        if (constructor === null) {
          fallback = typedArrayTag(value);
          bound = new typedArrayConstructors[fallback](value);
        }
        const size = typedArrayLength(value);
        const prefix = getPrefix(constructor, tag, fallback, `(${size})`);
        braces = [`${prefix}[`, ']'];
        if (size === 0 && keys.length === 0 && !ctx.showHidden) {
          return `${braces[0]}]`;
        }
        formatter = (ctx2, ignored, recurse) => formatTypedArray(ctx2, bound, size, recurse);
        extrasType = kArrayExtrasType;
      } else if (isMapIterator(value) || isSetIterator(value)) {
        keys = getKeys(value, ctx.showHidden);
        const iteratorBraces = getIteratorBraces(isMapIterator(value) ? 'Map' : 'Set', tag);
        braces = iteratorBraces;
        formatter = (ctx2, iterator, recurse) =>
          formatIterator(iteratorBraces, ctx2, iterator, recurse);
      } else {
        noIterator = true;
      }
    }

    if (noIterator) {
      keys = getKeys(value, ctx.showHidden);
      braces = ['{', '}'];
      if (typeof value === 'function') {
        base = getFunctionBase(ctx, value, constructor, tag);
        if (keys.length === 0 && protoProps === undefined) {
          return base;
        }
      } else if (constructor === 'Object') {
        if (isArgumentsObject(value)) {
          braces[0] = '[Arguments] {';
        } else if (tag !== '') {
          braces[0] = `${getPrefix(constructor, tag, 'Object')}{`;
        }
        if (keys.length === 0 && protoProps === undefined) {
          return `${braces[0]}}`;
        }
      } else if (isRegExp(value)) {
        base = regExpToString(constructor !== null ? value : new RegExp(value));
        const prefix = getPrefix(constructor, tag, 'RegExp');
        if (prefix !== 'RegExp ') {
          base = `${prefix}${base}`;
        }
        if ((keys.length === 0 && protoProps === undefined) || depthExceeded(ctx, recurseTimes)) {
          return base;
        }
      } else if (isDate(value)) {
        base = Number.isNaN(dateGetTime(value)) ? dateToString(value) : dateToISOString(value);
        const prefix = getPrefix(constructor, tag, 'Date');
        if (prefix !== 'Date ') {
          base = `${prefix}${base}`;
        }
        if (keys.length === 0 && protoProps === undefined) {
          return base;
        }
      } else if (isError(value)) {
        base = inspectError(ctx, value, constructor, tag, keys);
        if (keys.length === 0 && protoProps === undefined) {
          return base;
        }
      } else if (isArrayBuffer(value) || isSharedArrayBuffer(value)) {
        const arrayType = isArrayBuffer(value) ? 'ArrayBuffer' : 'SharedArrayBuffer';
        const prefix = getPrefix(constructor, tag, arrayType);
        if (typedArray === undefined) {
          formatter = formatArrayBuffer;
        } else if (keys.length === 0 && protoProps === undefined) {
          return `${prefix}{ byteLength: ${formatNumber(value.byteLength)} }`;
        }
        braces[0] = `${prefix}{`;
        keys.unshift('byteLength');
      } else if (isDataView(value)) {
        braces[0] = `${getPrefix(constructor, tag, 'DataView')}{`;
        // The buffer goes last: it is the only one that is not a primitive.
        keys.unshift('byteLength', 'byteOffset', 'buffer');
      } else if (isPromise(value)) {
        braces[0] = `${getPrefix(constructor, tag, 'Promise')}{`;
        formatter = formatPromise;
      } else if (isWeakSet(value)) {
        braces[0] = `${getPrefix(constructor, tag, 'WeakSet')}{`;
        formatter = formatUnknownItems;
      } else if (isWeakMap(value)) {
        braces[0] = `${getPrefix(constructor, tag, 'WeakMap')}{`;
        formatter = formatUnknownItems;
      } else {
        const boxed = boxedPrimitive(value);
        if (boxed !== undefined) {
          base = getBoxedBase(boxed, ctx, keys, constructor, tag);
          if (keys.length === 0 && protoProps === undefined) {
            return base;
          }
        } else {
          if (keys.length === 0 && protoProps === undefined) {
            return `${getCtxStyle(value, constructor, tag)}{}`;
          }
          braces[0] = `${getCtxStyle(value, constructor, tag)}{`;
        }
      }
    }

    if (depthExceeded(ctx, recurseTimes)) {
      let constructorName = getCtxStyle(value, constructor, tag).slice(0, -1);
      if (constructor !== null) {
        constructorName = `[${constructorName}]`;
      }
      return constructorName;
    }
    recurseTimes += 1;

    ctx.seen.push(value);
    ctx.currentDepth = recurseTimes;
    let output;
    const indentationLvl = ctx.indentationLvl;
    try {
      output = formatter(ctx, value, recurseTimes);
      for (let i = 0; i < keys.length; i++) {
        output.push(formatProperty(ctx, value, recurseTimes, keys[i], extrasType));
      }
      if (protoProps !== undefined) {
        output.push(...protoProps);
      }
    } catch (err) {
      if (!isStackOverflowError(err)) {
        throw err;
      }
      ctx.seen.pop();
      ctx.indentationLvl = indentationLvl;
      const constructorName = getCtxStyle(value, constructor, tag).slice(0, -1);
      return `[${constructorName}: Inspection interrupted prematurely. ` +
        'Maximum call stack size exceeded.]';
    }
    if (ctx.circular !== undefined) {
      const index = ctx.circular.get(value);
      if (index !== undefined) {
        const reference = `<ref *${index}>`;
        if (ctx.compact !== true) {
          base = base === '' ? reference : `${reference} ${base}`;
        } else {
          braces[0] = `${reference} ${braces[0]}`;
        }
      }
    }
    ctx.seen.pop();

    if (ctx.sorted) {
      const comparator = ctx.sorted === true ? undefined : ctx.sorted;
      if (extrasType === kObjectType) {
        output.sort(comparator);
      } else if (keys.length > 1) {
        const sorted = output.slice(output.length - keys.length).sort(comparator);
        output.splice(output.length - keys.length, keys.length, ...sorted);
      }
    }

    const res = reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
    // Past this much output at one indentation level, stop descending (as Node does).
    const newLength = (ctx.budget[ctx.indentationLvl] || 0) + res.length;
    ctx.budget[ctx.indentationLvl] = newLength;
    if (newLength > 2 ** 27) {
      ctx.depth = -1;
    }
    return res;
  }

  function getIteratorBraces(type, tag) {
    if (tag !== `${type} Iterator`) {
      if (tag !== '') {
        tag += '] [';
      }
      tag += `${type} Iterator`;
    }
    return [`[${tag}] {`, '}'];
  }

  function getBoxedBase([type, primitive], ctx, keys, constructor, tag) {
    if (type === 'String') {
      // The index keys of a String object repeat its value.
      keys.splice(0, primitive.length);
    }
    let base = `[${type}`;
    if (type !== constructor) {
      base += constructor === null ? ' (null prototype)' : ` (${constructor})`;
    }
    base += `: ${formatPrimitive(primitive, ctx)}]`;
    if (tag !== '' && tag !== constructor) {
      base += ` [${tag}]`;
    }
    return base;
  }

  function getClassBase(value, constructor, tag) {
    const name = (hasOwn(value, 'name') && value.name) || '(anonymous)';
    let base = `class ${name}`;
    if (constructor !== 'Function' && constructor !== null) {
      base += ` [${constructor}]`;
    }
    if (tag !== '' && constructor !== tag) {
      base += ` [${tag}]`;
    }
    if (constructor !== null) {
      const superName = getPrototypeOf(value).name;
      if (superName) {
        base += ` extends ${superName}`;
      }
    } else {
      base += ' extends [null prototype]';
    }
    return `[${base}]`;
  }

  function getFunctionBase(ctx, value, constructor, tag) {
    const source = functionToString(value);
    if (source.startsWith('class') && source.endsWith('}')) {
      const slice = source.slice(5, -1);
      const bracketIndex = slice.indexOf('{');
      if (bracketIndex !== -1 &&
          (!slice.slice(0, bracketIndex).includes('(') ||
           classRegExp.test(slice.replace(stripCommentsRegExp, '')))) {
        return getClassBase(value, constructor, tag);
      }
    }
    let type = 'Function';
    if (isGeneratorFunction(value)) {
      type = `Generator${type}`;
    }
    if (isAsyncFunction(value)) {
      type = `Async${type}`;
    }
    let base = `[${type}`;
    if (constructor === null) {
      base += ' (null prototype)';
    }
    if (value.name === '') {
      base += ' (anonymous)';
    } else {
      base += `: ${typeof value.name === 'string' ? value.name : formatValue(ctx, value.name)}`;
    }
    base += ']';
    if (constructor !== type && constructor !== null) {
      base += ` ${constructor}`;
    }
    if (tag !== '' && constructor !== tag) {
      base += ` [${tag}]`;
    }
    return base;
  }

  // ---------------------------------------------------------------------------
  // inspect: entries of arrays, collections and other containers
  // ---------------------------------------------------------------------------

  const remainingText = (remaining) => `... ${remaining} more item${remaining > 1 ? 's' : ''}`;

  function formatArray(ctx, value, recurseTimes) {
    const valLen = value.length;
    const len = Math.min(Math.max(0, ctx.maxArrayLength), valLen);
    const output = [];
    for (let i = 0; i < len; i++) {
      if (!hasOwn(value, i)) {
        return formatSparseArray(ctx, value, recurseTimes, len, output, i);
      }
      output.push(formatProperty(ctx, value, recurseTimes, i, kArrayType));
    }
    if (valLen - len > 0) {
      output.push(remainingText(valLen - len));
    }
    return output;
  }

  // Continues formatArray from index `i` for an array with holes.
  function formatSparseArray(ctx, value, recurseTimes, maxLength, output, i) {
    const keys = objectKeys(value);
    let index = i;
    for (; i < keys.length && output.length < maxLength; i++) {
      const key = keys[i];
      const tmp = +key;
      if (tmp > 2 ** 32 - 2) {
        break;
      }
      if (`${index}` !== key) {
        if (!numberRegExp.test(key)) {
          break;
        }
        const emptyItems = tmp - index;
        output.push(`<${emptyItems} empty item${emptyItems > 1 ? 's' : ''}>`);
        index = tmp;
        if (output.length === maxLength) {
          break;
        }
      }
      output.push(formatProperty(ctx, value, recurseTimes, key, kArrayType));
      index++;
    }
    const remaining = value.length - index;
    if (output.length !== maxLength) {
      if (remaining > 0) {
        output.push(`<${remaining} empty item${remaining > 1 ? 's' : ''}>`);
      }
    } else if (remaining > 0) {
      output.push(remainingText(remaining));
    }
    return output;
  }

  function formatTypedArray(ctx, value, length, recurseTimes) {
    const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
    const remaining = value.length - maxLength;
    const output = [];
    const elementFormatter = value.length > 0 && typeof value[0] === 'number' ?
      formatNumber : formatBigInt;
    for (let i = 0; i < maxLength; ++i) {
      output.push(elementFormatter(value[i]));
    }
    if (remaining > 0) {
      output.push(remainingText(remaining));
    }
    if (ctx.showHidden) {
      ctx.indentationLvl += 2;
      for (const key of ['BYTES_PER_ELEMENT', 'length', 'byteLength', 'byteOffset', 'buffer']) {
        output.push(`[${key}]: ${formatValue(ctx, value[key], recurseTimes, true)}`);
      }
      ctx.indentationLvl -= 2;
    }
    return output;
  }

  function formatArrayBuffer(ctx, value) {
    let buffer;
    try {
      buffer = new Uint8Array(value);
    } catch {
      return ['(detached)'];
    }
    const shown = Math.min(ctx.maxArrayLength, buffer.length);
    const bytes = [];
    for (let i = 0; i < shown; i++) {
      bytes.push(buffer[i].toString(16).padStart(2, '0'));
    }
    let str = bytes.join(' ');
    const remaining = buffer.length - ctx.maxArrayLength;
    if (remaining > 0) {
      str += ` ... ${remaining} more byte${remaining > 1 ? 's' : ''}`;
    }
    return [`[Uint8Contents]: <${str}>`];
  }

  function formatSet(ctx, value, recurseTimes) {
    const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), setSize(value));
    const remaining = setSize(value) - maxLength;
    const output = [];
    ctx.indentationLvl += 2;
    for (const v of setValues(value)) {
      if (output.length >= maxLength) break;
      output.push(formatValue(ctx, v, recurseTimes));
    }
    if (remaining > 0) {
      output.push(remainingText(remaining));
    }
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatMap(ctx, value, recurseTimes) {
    const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), mapSize(value));
    const remaining = mapSize(value) - maxLength;
    const output = [];
    ctx.indentationLvl += 2;
    for (const [k, v] of mapEntries(value)) {
      if (output.length >= maxLength) break;
      output.push(`${formatValue(ctx, k, recurseTimes)} => ${formatValue(ctx, v, recurseTimes)}`);
    }
    if (remaining > 0) {
      output.push(remainingText(remaining));
    }
    ctx.indentationLvl -= 2;
    return output;
  }

  // Weak collections: their items cannot be listed without side effects.
  function formatUnknownItems() {
    return ['<items unknown>'];
  }

  // Map and Set iterators: the items still to come, read without advancing the iterator;
  // entries() iterators print as "[Map Entries] { [ k, v ] }".
  function formatIterator(braces, ctx, value, recurseTimes) {
    const preview = hostIteratorItems === undefined ? undefined : hostIteratorItems(value);
    if (preview === undefined) {
      return formatUnknownItems();
    }
    const [entries, isKeyValue] = preview;
    const maxArrayLength = Math.max(ctx.maxArrayLength, 0);
    const length = isKeyValue ? entries.length / 2 : entries.length;
    const maxLength = Math.min(maxArrayLength, length);
    const output = [];
    ctx.indentationLvl += 2;
    for (let i = 0; i < maxLength; i++) {
      if (isKeyValue) {
        const pair = [
          formatValue(ctx, entries[i * 2], recurseTimes),
          formatValue(ctx, entries[i * 2 + 1], recurseTimes),
        ];
        output.push(reduceToSingleString(ctx, pair, '', ['[', ']'], kArrayExtrasType, recurseTimes));
      } else {
        output.push(formatValue(ctx, entries[i], recurseTimes));
      }
    }
    ctx.indentationLvl -= 2;
    if (isKeyValue) {
      braces[0] = braces[0].replace(/ Iterator] {$/, ' Entries] {');
    }
    if (length - maxLength > 0) {
      output.push(remainingText(length - maxLength));
    }
    return output;
  }

  function formatPromise(ctx, value, recurseTimes) {
    if (hostPromiseState === undefined) {
      return ['<unknown>'];
    }
    const state = hostPromiseState(value);
    if (state === 0) {
      return ['<pending>'];
    }
    ctx.indentationLvl += 2;
    const str = formatValue(ctx, hostPromiseResult(value), recurseTimes);
    ctx.indentationLvl -= 2;
    return [state === 2 ? `<rejected> ${str}` : str];
  }

  // Formats one property as "key: value" (only the value for array elements).
  function formatProperty(ctx, value, recurseTimes, key, type, desc, original = value) {
    let name;
    let str;
    let extra = ' ';
    if (desc === undefined) {
      desc = getOwnPropertyDescriptor(value, key) || { value: value[key], enumerable: true };
    }
    if (desc.value !== undefined) {
      const diff = (ctx.compact !== true || type !== kObjectType) ? 2 : 3;
      ctx.indentationLvl += diff;
      str = formatValue(ctx, desc.value, recurseTimes);
      if (diff === 3 && ctx.breakLength < getStringWidth(str, false)) {
        extra = `\n${' '.repeat(ctx.indentationLvl)}`;
      }
      ctx.indentationLvl -= diff;
    } else if (desc.get !== undefined) {
      const label = desc.set !== undefined ? 'Getter/Setter' : 'Getter';
      if (ctx.getters && (ctx.getters === true ||
            (ctx.getters === 'get' && desc.set === undefined) ||
            (ctx.getters === 'set' && desc.set !== undefined))) {
        try {
          const tmp = desc.get.call(original);
          ctx.indentationLvl += 2;
          if (tmp === null) {
            str = `[${label}: null]`;
          } else if (typeof tmp === 'object') {
            str = `[${label}] ${formatValue(ctx, tmp, recurseTimes)}`;
          } else {
            str = `[${label}: ${formatPrimitive(tmp, ctx)}]`;
          }
          ctx.indentationLvl -= 2;
        } catch (err) {
          str = `[${label}: <Inspection threw (${err.message})>]`;
        }
      } else {
        str = `[${label}]`;
      }
    } else if (desc.set !== undefined) {
      str = '[Setter]';
    } else {
      str = 'undefined';
    }
    if (type === kArrayType) {
      return str;
    }
    if (typeof key === 'symbol') {
      name = `[${escapeChars(symbolToString(key), 39)}]`;
    } else if (key === '__proto__') {
      name = "['__proto__']";
    } else if (desc.enumerable === false) {
      name = `[${escapeChars(key, 39)}]`;
    } else if (keyStrRegExp.test(key)) {
      name = key;
    } else {
      name = strEscape(key);
    }
    return `${name}:${extra}${str}`;
  }

  // ---------------------------------------------------------------------------
  // inspect: layout
  // ---------------------------------------------------------------------------

  // Lays out more than six array entries in aligned columns when they are short enough.
  function groupArrayElements(ctx, output, value) {
    let totalLength = 0;
    let maxLength = 0;
    let outputLength = output.length;
    if (ctx.maxArrayLength < output.length) {
      // The "... more items" entry is not part of the grid.
      outputLength--;
    }
    const separatorSpace = 2; // A comma and a space.
    const dataLen = new Array(outputLength);
    for (let i = 0; i < outputLength; i++) {
      const len = getStringWidth(output[i], ctx.colors);
      dataLen[i] = len;
      totalLength += len + separatorSpace;
      if (maxLength < len) maxLength = len;
    }
    const actualMax = maxLength + separatorSpace;
    // At least three columns must fit, and no entry may be far longer than the others.
    if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
        (totalLength / actualMax > 5 || maxLength <= 6)) {
      const approxCharHeights = 2.5;
      const averageBias = Math.sqrt(actualMax - totalLength / output.length);
      const biasedMax = Math.max(actualMax - 3 - averageBias, 1);
      // Aim at a square block, characters being about 2.5 times as high as wide.
      const columns = Math.min(
        Math.round(Math.sqrt(approxCharHeights * biasedMax * outputLength) / biasedMax),
        Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
        ctx.compact * 4,
        15);
      if (columns <= 1) {
        return output;
      }
      const tmp = [];
      const maxLineLength = [];
      for (let i = 0; i < columns; i++) {
        let lineMaxLength = 0;
        for (let j = i; j < output.length; j += columns) {
          if (dataLen[j] > lineMaxLength) lineMaxLength = dataLen[j];
        }
        maxLineLength.push(lineMaxLength + separatorSpace);
      }
      // Numbers are right-aligned, everything else left-aligned.
      let padStart = true;
      if (value !== undefined) {
        for (let i = 0; i < output.length; i++) {
          if (typeof value[i] !== 'number' && typeof value[i] !== 'bigint') {
            padStart = false;
            break;
          }
        }
      }
      for (let i = 0; i < outputLength; i += columns) {
        const max = Math.min(i + columns, outputLength);
        let str = '';
        let j = i;
        for (; j < max - 1; j++) {
          const padding = maxLineLength[j - i] + output[j].length - dataLen[j];
          str += padStart ? `${output[j]}, `.padStart(padding, ' ') :
            `${output[j]}, `.padEnd(padding, ' ');
        }
        if (padStart) {
          const padding = maxLineLength[j - i] + output[j].length - dataLen[j] - separatorSpace;
          str += output[j].padStart(padding, ' ');
        } else {
          str += output[j];
        }
        tmp.push(str);
      }
      if (ctx.maxArrayLength < output.length) {
        tmp.push(output[outputLength]);
      }
      output = tmp;
    }
    return output;
  }

  function isBelowBreakLength(ctx, output, start, base) {
    // Each entry takes at least a separator, hence output.length.
    let totalLength = output.length + start;
    if (totalLength + output.length > ctx.breakLength) {
      return false;
    }
    for (let i = 0; i < output.length; i++) {
      totalLength += output[i].length;
      if (totalLength > ctx.breakLength) {
        return false;
      }
    }
    return base === '' || !base.includes('\n');
  }

  // Joins the entries on one line when they fit (with compact = 3: when the innermost
  // three levels fit within breakLength), otherwise one entry per line.
  function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
    if (ctx.compact !== true) {
      if (typeof ctx.compact === 'number' && ctx.compact >= 1) {
        const entries = output.length;
        if (extrasType === kArrayExtrasType && entries > 6) {
          output = groupArrayElements(ctx, output, value);
        }
        // ctx.currentDepth is the deepest level reached below this object.
        if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
          const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
          if (isBelowBreakLength(ctx, output, start, base)) {
            const joined = output.join(', ');
            if (!joined.includes('\n')) {
              return `${base ? `${base} ` : ''}${braces[0]} ${joined} ${braces[1]}`;
            }
          }
        }
      }
      const indentation = `\n${' '.repeat(ctx.indentationLvl)}`;
      return `${base ? `${base} ` : ''}${braces[0]}${indentation}  ` +
        `${output.join(`,${indentation}  `)}${indentation}${braces[1]}`;
    }
    if (isBelowBreakLength(ctx, output, 0, base)) {
      return `${braces[0]}${base ? ` ${base}` : ''} ${output.join(', ')} ${braces[1]}`;
    }
    const indentation = ' '.repeat(ctx.indentationLvl);
    // A long opening brace ("Set {") puts the first entry on its own line.
    const ln = base === '' && braces[0].length === 1 ?
      ' ' : `${base ? ` ${base}` : ''}\n${indentation}  `;
    return `${braces[0]}${ln}${output.join(`,\n${indentation}  `)} ${braces[1]}`;
  }

  // ---------------------------------------------------------------------------
  // Errors
  // ---------------------------------------------------------------------------

  // "Name: message", as Error.prototype.toString and V8's stack header give it.
  function errorHeader(err) {
    try {
      return errorToString(err);
    } catch {
      return 'Error';
    }
  }

  // Returns the error's stack as V8 writes it: the "Name: message" line, then the frames.
  // The engine writes stacks that way; a stack of frames only (console.trace's) gets the
  // header and the frame limit here, and any other string is returned as it is.
  function formatError(err) {
    let stack;
    try {
      stack = err.stack;
    } catch {
      stack = undefined;
    }
    if (typeof stack === 'string' && stack.startsWith('    at ')) {
      const frames = stack.split('\n');
      if (frames[frames.length - 1] === '') {
        frames.pop();
      }
      const limit = ErrorConstructor.stackTraceLimit;
      const count = typeof limit === 'number' ? Math.max(0, limit) || 0 : 10;
      const kept = frames.slice(0, count);
      return kept.length === 0 ? errorHeader(err) : `${errorHeader(err)}\n${kept.join('\n')}`;
    }
    if (typeof stack === 'string' && stack !== '') {
      return stack;
    }
    return errorHeader(err);
  }

  // Finds a run of more than three frames shared by `a` and `b` (the cause's frames).
  function identicalSequenceRange(a, b) {
    for (let i = 0; i < a.length - 3; i++) {
      const pos = b.indexOf(a[i]);
      if (pos !== -1) {
        const rest = b.length - pos;
        if (rest > 3) {
          let len = 1;
          const maxLen = Math.min(a.length - i, rest);
          while (maxLen > len && a[i + len] === b[pos + len]) {
            len++;
          }
          if (len > 3) {
            return { len, offset: i };
          }
        }
      }
    }
    return { len: 0, offset: 0 };
  }

  function getStackString(ctx, err) {
    let stack;
    try {
      stack = err.stack;
    } catch {
      stack = undefined;
    }
    if (stack && typeof stack !== 'string') {
      return formatValue(ctx, stack);
    }
    return formatError(err);
  }

  // The frame lines, with the frames the error shares with its cause elided.
  function getStackFrames(ctx, err, stack) {
    const frames = stack.split('\n');
    let cause;
    try {
      cause = err.cause;
    } catch {
      // A throwing `cause` getter is ignored.
    }
    if (cause != null && isError(cause)) {
      const causeStack = getStackString(ctx, cause);
      const causeStackStart = causeStack.indexOf('\n    at');
      if (causeStackStart !== -1) {
        const causeFrames = causeStack.slice(causeStackStart + 1).split('\n');
        const { len, offset } = identicalSequenceRange(frames, causeFrames);
        if (len > 0) {
          const skipped = len - 2;
          frames.splice(offset + 1, skipped,
            `    ... ${skipped} lines matching cause stack trace ...`);
        }
      }
    }
    return frames;
  }

  // Puts the constructor name in the first line when it differs from the error's name.
  function improveStack(stack, constructor, name, tag) {
    let len = name.length;
    if (typeof name !== 'string') {
      stack = stack.replace(`${name}`,
        `${name} [${getPrefix(constructor, tag, 'Error').slice(0, -1)}]`);
    }
    if (constructor === null ||
        (name.endsWith('Error') &&
         stack.startsWith(name) &&
         (stack.length === len || stack[len] === ':' || stack[len] === '\n'))) {
      let fallback = 'Error';
      if (constructor === null) {
        const start = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n {4}at)/.exec(stack) ||
          /^([a-z_A-Z0-9-]*Error)$/.exec(stack);
        fallback = (start && start[1]) || '';
        len = fallback.length;
        fallback = fallback || 'Error';
      }
      const prefix = getPrefix(constructor, tag, fallback).slice(0, -1);
      if (name !== prefix) {
        if (prefix.includes(name)) {
          stack = len === 0 ? `${prefix}: ${stack}` : `${prefix}${stack.slice(len)}`;
        } else {
          stack = `${prefix} [${name}]${stack.slice(len)}`;
        }
      }
    }
    return stack;
  }

  // Drops the name, message and stack keys when the printed stack already shows them.
  function removeDuplicateErrorKeys(ctx, keys, err, stack) {
    if (!ctx.showHidden && keys.length !== 0) {
      for (const name of ['name', 'message', 'stack']) {
        const index = keys.indexOf(name);
        if (index !== -1 && (typeof err[name] !== 'string' || stack.includes(err[name]))) {
          keys.splice(index, 1);
        }
      }
    }
  }

  // The base text of an error inside inspect: its stack, in brackets when it has no
  // frames, indented to the current level. Adds `cause` and `errors` to `keys`.
  function inspectError(ctx, err, constructor, tag, keys) {
    const name = err.name != null ? err.name : 'Error';
    let stack = getStackString(ctx, err);
    removeDuplicateErrorKeys(ctx, keys, err, stack);
    if ('cause' in err && !keys.includes('cause')) {
      keys.push('cause');
    }
    if (isArray(err.errors) && !keys.includes('errors')) {
      keys.push('errors');
    }
    stack = improveStack(stack, constructor, name, tag);

    // The message may itself contain "\n    at"; look for frames after it.
    let pos = (err.message && stack.indexOf(err.message)) || -1;
    if (pos !== -1) {
      pos += err.message.length;
    }
    const stackStart = stack.indexOf('\n    at', pos);
    if (stackStart === -1) {
      stack = `[${stack}]`;
    } else {
      const frames = getStackFrames(ctx, err, stack.slice(stackStart + 1));
      stack = `${stack.slice(0, stackStart)}\n${frames.join('\n')}`;
    }
    if (ctx.indentationLvl !== 0) {
      stack = stack.replace(/\n/g, `\n${' '.repeat(ctx.indentationLvl)}`);
    }
    return stack;
  }

  // ---------------------------------------------------------------------------
  // util.format
  // ---------------------------------------------------------------------------

  // Whether `value` would print through a built-in toString (so %s inspects it instead).
  function hasBuiltInToString(value) {
    let hasOwnToString = hasOwn;
    let hasOwnToPrimitive = hasOwn;
    if (typeof value.toString !== 'function') {
      if (typeof value[Symbol.toPrimitive] !== 'function') {
        return true;
      } else if (hasOwn(value, Symbol.toPrimitive)) {
        return false;
      }
      hasOwnToString = () => false;
    } else if (hasOwn(value, 'toString')) {
      return false;
    } else if (typeof value[Symbol.toPrimitive] !== 'function') {
      hasOwnToPrimitive = () => false;
    } else if (hasOwn(value, Symbol.toPrimitive)) {
      return false;
    }
    let pointer = value;
    do {
      pointer = getPrototypeOf(pointer);
    } while (!hasOwnToString(pointer, 'toString') &&
             !hasOwnToPrimitive(pointer, Symbol.toPrimitive));
    const descriptor = getOwnPropertyDescriptor(pointer, 'constructor');
    return descriptor !== undefined &&
      typeof descriptor.value === 'function' &&
      builtInObjects.has(descriptor.value.name);
  }

  function tryStringify(arg) {
    try {
      return JSON.stringify(arg);
    } catch (err) {
      if (err instanceof TypeError && /circular/i.test(err.message)) {
        return '[Circular]';
      }
      throw err;
    }
  }

  // Replaces one placeholder ("%s" without its "%") by the text of `arg`.
  function formatPlaceholder(code, arg, inspectOptions) {
    switch (code) {
      case 115: // 's'
        if (typeof arg === 'number') return formatNumber(arg);
        if (typeof arg === 'bigint') return formatBigInt(arg);
        if (typeof arg !== 'object' || arg === null || !hasBuiltInToString(arg)) {
          return String(arg);
        }
        return inspect(arg, { ...inspectOptions, compact: 3, colors: false, depth: 0 });
      case 106: // 'j'
        return tryStringify(arg);
      case 100: // 'd'
        if (typeof arg === 'bigint') return formatBigInt(arg);
        if (typeof arg === 'symbol') return 'NaN';
        return formatNumber(Number(arg));
      case 79: // 'O'
        return inspect(arg, inspectOptions);
      case 111: // 'o'
        return inspect(arg, { ...inspectOptions, showHidden: true, showProxy: true, depth: 4 });
      case 105: // 'i'
        if (typeof arg === 'bigint') return formatBigInt(arg);
        if (typeof arg === 'symbol') return 'NaN';
        return formatNumber(parseInt(arg));
      case 102: // 'f'
        if (typeof arg === 'symbol') return 'NaN';
        return formatNumber(parseFloat(arg));
      default: // 'c': CSS is dropped with its argument.
        return '';
    }
  }

  // util.formatWithOptions: printf-like placeholders in a first string argument, then
  // the remaining arguments (strings as they are, other values inspected), space-separated.
  function formatWithOptions(inspectOptions, args) {
    const first = args[0];
    let a = 0;
    let str = '';
    let join = '';

    if (typeof first === 'string') {
      if (args.length === 1) {
        return first;
      }
      let lastPos = 0;
      for (let i = 0; i < first.length - 1; i++) {
        if (first.charCodeAt(i) !== 37) { // '%'
          continue;
        }
        const nextChar = first.charCodeAt(++i);
        if (a + 1 !== args.length) {
          if (nextChar === 37) {
            str += first.slice(lastPos, i);
            lastPos = i + 1;
            continue;
          }
          if (!'sjdOoifc'.includes(first[i])) {
            continue;
          }
          const tempStr = formatPlaceholder(nextChar, args[++a], inspectOptions);
          if (lastPos !== i - 1) {
            str += first.slice(lastPos, i - 1);
          }
          str += tempStr;
          lastPos = i + 1;
        } else if (nextChar === 37) {
          str += first.slice(lastPos, i);
          lastPos = i + 1;
        }
      }
      if (lastPos !== 0) {
        a++;
        join = ' ';
        if (lastPos < first.length) {
          str += first.slice(lastPos);
        }
      }
    }

    while (a < args.length) {
      const value = args[a];
      str += join;
      str += typeof value !== 'string' ? inspect(value, inspectOptions) : value;
      join = ' ';
      a++;
    }
    return str;
  }

  const format = (...args) => formatWithOptions(undefined, args);

  // ---------------------------------------------------------------------------
  // console.table: Node's box-drawing table
  // ---------------------------------------------------------------------------

  function renderRow(row, columnWidths) {
    let out = '│ ';
    for (let i = 0; i < row.length; i++) {
      const cell = row[i];
      const needed = columnWidths[i] - getStringWidth(cell);
      out += cell + ' '.repeat(needed);
      if (i !== row.length - 1) {
        out += ' │ ';
      }
    }
    return `${out} │`;
  }

  // Renders columns (arrays of cell texts, possibly with holes) under the headings `head`.
  function renderTable(head, columns) {
    const rows = [];
    const columnWidths = head.map((h) => getStringWidth(h));
    const longestColumn = columns.reduce((n, a) => Math.max(n, a.length), 0);
    for (let i = 0; i < head.length; i++) {
      const column = columns[i];
      for (let j = 0; j < longestColumn; j++) {
        if (rows[j] === undefined) {
          rows[j] = [];
        }
        const value = rows[j][i] = hasOwn(column, j) ? column[j] : '';
        columnWidths[i] = Math.max(columnWidths[i] || 0, getStringWidth(value));
      }
    }
    const divider = columnWidths.map((w) => '─'.repeat(w + 2));
    let result = `┌${divider.join('┬')}┐\n${renderRow(head, columnWidths)}\n` +
      `├${divider.join('┼')}┤\n`;
    for (const row of rows) {
      result += `${renderRow(row, columnWidths)}\n`;
    }
    return `${result}└${divider.join('┴')}┘`;
  }

  // The text of console.table(tabularData, properties), or undefined when the data is
  // not an object (console.table then logs it as it is).
  function formatTable(tabularData, properties) {
    const isArrayLike = (v) => isArray(v) || isTypedArray(v);
    const cell = (v) => {
      const depth = v !== null && typeof v === 'object' && !isArrayLike(v) &&
        objectKeys(v).length > 2 ? -1 : 0;
      return inspect(v, { depth, maxArrayLength: 3, breakLength: Infinity });
    };
    const indexColumn = (length) => Array.from({ length }, (_, i) => cell(i));

    if (isMap(tabularData)) {
      const keys = [];
      const values = [];
      for (const [k, v] of mapEntries(tabularData)) {
        keys.push(cell(k));
        values.push(cell(v));
      }
      return renderTable(['(iteration index)', 'Key', 'Values'],
        [indexColumn(keys.length), keys, values]);
    }
    if (isSet(tabularData)) {
      const values = [];
      for (const v of setValues(tabularData)) {
        values.push(cell(v));
      }
      return renderTable(['(iteration index)', 'Values'], [indexColumn(values.length), values]);
    }

    const map = { __proto__: null };
    let hasPrimitives = false;
    const valuesColumn = [];
    const indexKeys = objectKeys(tabularData);
    for (let i = 0; i < indexKeys.length; i++) {
      const item = tabularData[indexKeys[i]];
      const primitive = item === null || (typeof item !== 'function' && typeof item !== 'object');
      if (properties === undefined && primitive) {
        hasPrimitives = true;
        valuesColumn[i] = cell(item);
      } else {
        for (const key of properties || objectKeys(item)) {
          if (map[key] === undefined) {
            map[key] = [];
          }
          if ((primitive && properties) || !hasOwn(item, key)) {
            map[key][i] = '';
          } else {
            map[key][i] = cell(item[key]);
          }
        }
      }
    }
    const head = objectKeys(map);
    const columns = head.map((key) => map[key]);
    if (hasPrimitives) {
      head.push('Values');
      columns.push(valuesColumn);
    }
    head.unshift('(index)');
    columns.unshift(indexKeys);
    return renderTable(head, columns);
  }

  // ---------------------------------------------------------------------------
  // console
  // ---------------------------------------------------------------------------

  const kStdout = 1;
  const kStderr = 2;
  let groupIndent = '';
  const counts = new Map();
  const timers = new Map();

  // Writes one line to fd 1 or 2, indented for the current console.group level.
  function writeLine(fd, string) {
    if (groupIndent.length !== 0) {
      if (string.includes('\n')) {
        string = string.replace(/\n/g, `\n${groupIndent}`);
      }
      string = groupIndent + string;
    }
    hostWrite(fd, `${string}\n`);
  }

  function emitWarning(message) {
    hostWrite(kStderr, `Warning: ${message}\n`);
  }

  function formatTime(ms) {
    const kSecond = 1000;
    const kMinute = 60 * kSecond;
    const kHour = 60 * kMinute;
    let hours = 0;
    let minutes = 0;
    let seconds = 0;
    if (ms >= kSecond) {
      if (ms >= kMinute) {
        if (ms >= kHour) {
          hours = Math.floor(ms / kHour);
          ms %= kHour;
        }
        minutes = Math.floor(ms / kMinute);
        ms %= kMinute;
      }
      seconds = ms / kSecond;
    }
    if (hours !== 0 || minutes !== 0) {
      const [wholeSeconds, millis] = seconds.toFixed(3).split('.');
      const pad = (value) => `${value}`.padStart(2, '0');
      const res = hours !== 0 ? `${hours}:${pad(minutes)}` : minutes;
      return `${res}:${pad(wholeSeconds)}.${millis} (${hours !== 0 ? 'h:m' : ''}m:ss.mmm)`;
    }
    if (seconds !== 0) {
      return `${seconds.toFixed(3)}s`;
    }
    return `${Number(ms.toFixed(3))}ms`;
  }

  // Logs "label: duration" and any extra data; false when the timer does not exist.
  function timeLogImpl(method, label, data) {
    const start = timers.get(label);
    if (start === undefined) {
      emitWarning(`No such label '${label}' for console.${method}()`);
      return false;
    }
    const formatted = formatTime(Date.now() - start);
    writeLine(kStdout, formatWithOptions(undefined, ['%s: %s', label, formatted, ...data]));
    return true;
  }

  const consoleMethods = {
    log(...args) {
      writeLine(kStdout, formatWithOptions(undefined, args));
    },
    warn(...args) {
      writeLine(kStderr, formatWithOptions(undefined, args));
    },
    dir(object, options) {
      writeLine(kStdout, inspect(object, { customInspect: false, ...options }));
    },
    time(label = 'default') {
      label = `${label}`;
      if (timers.has(label)) {
        emitWarning(`Label '${label}' already exists for console.time()`);
        return;
      }
      timers.set(label, Date.now());
    },
    timeEnd(label = 'default') {
      label = `${label}`;
      if (timeLogImpl('timeEnd', label, [])) {
        timers.delete(label);
      }
    },
    timeLog(label = 'default', ...data) {
      timeLogImpl('timeLog', `${label}`, data);
    },
    trace(...args) {
      // The stack's first line is its header and the first frame this method's own:
      // one frame more than the limit leaves the limit's number of the caller's.
      const limit = ErrorConstructor.stackTraceLimit;
      let frames;
      try {
        if (typeof limit === 'number') {
          ErrorConstructor.stackTraceLimit = limit + 1;
        }
        frames = new ErrorConstructor().stack;
      } finally {
        ErrorConstructor.stackTraceLimit = limit;
      }
      const err = {
        name: 'Trace',
        message: formatWithOptions(undefined, args),
        stack: typeof frames === 'string' ? frames.split('\n').slice(2).join('\n') : '',
      };
      writeLine(kStderr, formatError(err));
    },
    assert(expression, ...args) {
      if (!expression) {
        args[0] = `Assertion failed${args.length === 0 ? '' : `: ${args[0]}`}`;
        writeLine(kStderr, formatWithOptions(undefined, args));
      }
    },
    clear() {
      // Node only clears a terminal; sandbox output never is one.
    },
    count(label = 'default') {
      label = `${label}`;
      const count = (counts.get(label) || 0) + 1;
      counts.set(label, count);
      writeLine(kStdout, `${label}: ${count}`);
    },
    countReset(label = 'default') {
      label = `${label}`;
      if (!counts.has(label)) {
        emitWarning(`Count for '${label}' does not exist`);
        return;
      }
      counts.delete(label);
    },
    group(...data) {
      if (data.length > 0) {
        writeLine(kStdout, formatWithOptions(undefined, data));
      }
      groupIndent += '  ';
    },
    groupEnd() {
      groupIndent = groupIndent.slice(0, groupIndent.length - 2);
    },
    table(tabularData, properties) {
      if (properties !== undefined && !isArray(properties)) {
        throw new TypeError(
          `The "properties" argument must be an instance of Array. Received ${inspect(properties)}`);
      }
      if (tabularData === null || typeof tabularData !== 'object') {
        writeLine(kStdout, formatWithOptions(undefined, [tabularData]));
        return;
      }
      writeLine(kStdout, formatTable(tabularData, properties));
    },
    // Inspector-only methods in Node; they print nothing.
    profile() {},
    profileEnd() {},
    timeStamp() {},
  };
  // Aliases are separate functions so that each one carries its own name, as in Node.
  const alias = (target, name) =>
    defineProperty((...args) => target(...args), 'name', { value: name });
  consoleMethods.debug = alias(consoleMethods.log, 'debug');
  consoleMethods.info = alias(consoleMethods.log, 'info');
  consoleMethods.dirxml = alias(consoleMethods.log, 'dirxml');
  consoleMethods.error = alias(consoleMethods.warn, 'error');
  consoleMethods.groupCollapsed = alias(consoleMethods.group, 'groupCollapsed');

  // Same keys, order and tag as Node's console object.
  const console = {};
  for (const name of ['log', 'warn', 'dir', 'time', 'timeEnd', 'timeLog', 'trace', 'assert',
    'clear', 'count', 'countReset', 'group', 'groupEnd', 'table', 'debug', 'info', 'dirxml',
    'error', 'groupCollapsed', 'profile', 'profileEnd', 'timeStamp']) {
    console[name] = consoleMethods[name];
  }
  defineProperty(console, Symbol.toStringTag, {
    value: 'console', writable: false, enumerable: false, configurable: true,
  });
  defineProperty(globalThis, 'console', {
    value: console, writable: true, enumerable: false, configurable: true,
  });

  // util.inspect.defaultOptions: read and changed by util's users, console included.
  defineProperty(inspect, 'defaultOptions', {
    get: defineProperty(() => defaultOptions, 'name', { value: 'get' }),
    set: defineProperty((options) => {
      if (options === null || typeof options !== 'object') {
        const err = new TypeError('The "options" argument must be of type object.' +
          ` Received ${options === undefined || options === null ? options :
            `type ${typeof options} (${inspect(options)})`}`);
        err.code = 'ERR_INVALID_ARG_TYPE';
        throw err;
      }
      Object.assign(defaultOptions, options);
    }, 'name', { value: 'set' }),
    enumerable: true, configurable: true,
  });

  // The completion value of this script: what the host may call later, and what node.js
  // builds util on (the type checks are util.types').
  const types = {
    isMap, isSet, isWeakMap, isWeakSet, isDate, isDataView, isArrayBuffer,
    isSharedArrayBuffer, isRegExp, isArgumentsObject, isMapIterator, isSetIterator,
    isPromise, isTypedArray, isAsyncFunction, isGeneratorFunction, boxedPrimitive,
    typedArrayTag,
  };
  return { formatError, inspect, format, formatWithOptions, types };
})();
