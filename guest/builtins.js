// capsa guest built-ins: the ES2021-ES2024 library functions that QuickJS 2021-03-27 lacks
// (WeakRef and FinalizationRegistry among them), Array.fromAsync, and where the engine
// prints differently from V8 what the specification leaves open (the digits of
// Number#toString(radix), the zone name in Date strings), written to the specification. Evaluated first, once per engine, as a global script; it
// defines only the built-ins themselves and leaks no other global.
//
// - Each function is installed as the engine installs its own: writable, configurable, not
//   enumerable, with the specification's `length` and `name`; none is a constructor.
// - "use strip" compiles them without debug information: their source is not shown
//   (toString gives "[native code]") and stack traces show them as "(native)", as the
//   engine's own functions are.
// - Everything they call is captured here, before any script runs, so a script that
//   replaces Function.prototype.call, Array.prototype.push, Map.prototype.set or the like
//   does not change how they behave; arrays they return are made with CreateDataProperty
//   (through Array.from on a prototype-less source), so setters on Array.prototype never run.
// - Syntax cannot be added here: class static blocks, `#x in obj` and the RegExp `d`
//   flag are in the engine itself (deps/quickjs/0007-es2022-syntax.patch).
// - Error `cause` is in the engine itself (deps/quickjs/0005-error-cause.patch).

(function () {
  'use strict';
  'use strip';

  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const call = uncurry(Function.prototype.call);
  const getter = (proto, key) => uncurry(Object.getOwnPropertyDescriptor(proto, key).get);

  const ObjectCtor = Object;
  const ArrayCtor = Array;
  const MapCtor = Map;
  const PromiseCtor = Promise;
  const ProxyCtor = Proxy;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const { defineProperty, setPrototypeOf, getPrototypeOf, getOwnPropertyDescriptor } = Object;
  const isArray = Array.isArray;
  const symbolToString = uncurry(Symbol.prototype.toString);
  const { ownKeys } = Reflect;
  const { trunc, min, max } = Math;
  const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
  const symbolIterator = Symbol.iterator;
  const symbolAsyncIterator = Symbol.asyncIterator;
  const hasOwnProperty = uncurry(Object.prototype.hasOwnProperty);
  const arrayFrom = Array.from;
  const arraySort = uncurry(Array.prototype.sort);
  const mapGet = uncurry(Map.prototype.get);
  const mapSet = uncurry(Map.prototype.set);
  const mapForEach = uncurry(Map.prototype.forEach);
  const stringSlice = uncurry(String.prototype.slice);
  const regExpExec = uncurry(RegExp.prototype.exec);
  const bigIntAsIntN = BigInt.asIntN;

  const TypedArray = Object.getPrototypeOf(Int8Array);
  const TypedArrayPrototype = TypedArray.prototype;
  const typedArrayLength = getter(TypedArrayPrototype, 'length');
  const typedArrayTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  const typedArraySet = uncurry(TypedArrayPrototype.set);
  const typedArraySort = uncurry(TypedArrayPrototype.sort);
  const typedArrayReverse = uncurry(TypedArrayPrototype.reverse);
  const typedArrayValues = uncurry(TypedArrayPrototype.values);
  const typedArrayConstructors = {
    __proto__: null,
    Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array,
    Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
  };

  // ---------------------------------------------------------------------------
  // Abstract operations
  // ---------------------------------------------------------------------------

  const isObject = (v) => v !== null && (typeof v === 'object' || typeof v === 'function');

  function toObject(v) {
    if (v == null) {
      throw new TypeErrorCtor('Cannot convert undefined or null to object');
    }
    return ObjectCtor(v);
  }

  // RequireObjectCoercible, then ToString (a template literal is ToString: it throws
  // on a Symbol where String() would describe it).
  function thisString(v) {
    if (v == null) {
      throw new TypeErrorCtor('null or undefined are forbidden');
    }
    return `${v}`;
  }

  // ToIntegerOrInfinity: unary plus is ToNumber (it throws on BigInt and Symbol).
  function toIntegerOrInfinity(v) {
    const n = +v;
    return n !== n ? 0 : trunc(n) + 0;
  }

  function toLength(v) {
    const len = toIntegerOrInfinity(v);
    return len <= 0 ? 0 : min(len, MAX_SAFE_INTEGER);
  }

  const lengthOfArrayLike = (o) => toLength(o.length);

  // A value as V8's messages show it: "5", "undefined", "#<Object>".
  function describe(v) {
    if (typeof v === 'symbol') {
      return symbolToString(v);
    }
    if (!isObject(v)) {
      return `${v}`;
    }
    if (isArray(v)) {
      return '[object Array]';
    }
    for (let o = v; o !== null; o = getPrototypeOf(o)) {
      const desc = getOwnPropertyDescriptor(o, 'constructor');
      if (desc !== undefined) {
        const name = typeof desc.value === 'function' ? desc.value.name : '';
        return `#<${typeof name === 'string' && name !== '' ? name : 'Object'}>`;
      }
    }
    return '#<Object>';
  }

  function requireCallable(fn) {
    if (typeof fn !== 'function') {
      throw new TypeErrorCtor(`${describe(fn)} is not a function`);
    }
  }

  function requireComparator(fn) {
    if (fn !== undefined && typeof fn !== 'function') {
      throw new TypeErrorCtor('The comparison function must be either a function or undefined');
    }
  }

  // A new array of `len` elements, element k being get(k), defined with
  // CreateDataPropertyOrThrow in increasing k. ArrayCreate's RangeError when len is not
  // a valid array length comes from the Array constructor, before get is called.
  const arrayOf = (len, get) =>
    call(arrayFrom, ArrayCtor, { __proto__: null, length: len }, (_, k) => get(k));

  // Lists that only this file sees are arrays without a prototype: appending to them
  // never reaches a setter a script put on Array.prototype.
  function newList() {
    const list = [];
    setPrototypeOf(list, null);
    return list;
  }
  const listToArray = (list) => call(arrayFrom, ArrayCtor, list);

  function createDataPropertyOrThrow(o, key, value) {
    defineProperty(o, key, {
      __proto__: null, value, writable: true, enumerable: true, configurable: true,
    });
  }

  // IsConstructor without calling or reading anything of `c`: a proxy has [[Construct]]
  // exactly when its target has, and this one's trap answers without touching it.
  const constructProbe = { __proto__: null, construct: () => constructProbe };
  function isConstructor(c) {
    if (typeof c !== 'function') {
      return false;
    }
    try {
      new (new ProxyCtor(c, constructProbe))();
      return true;
    } catch {
      return false;
    }
  }

  // GetMethod(V, P).
  function getMethod(v, key) {
    const fn = v[key];
    if (fn == null) {
      return undefined;
    }
    requireCallable(fn);
    return fn;
  }

  // ValidateTypedArray: throws a TypeError unless `o` is a TypedArray whose buffer is not
  // detached; gives its length. The engine's length getter makes the first check; a
  // detached array has length 0, and then values() (which validates) makes the second.
  function validateTypedArray(o) {
    const len = typedArrayLength(o);
    if (len === 0) {
      typedArrayValues(o);
    }
    return len;
  }

  // TypedArrayCreateSameType: the intrinsic constructor of o's kind, never a species.
  const typedArraySameType = (o, len) => new typedArrayConstructors[typedArrayTag(o)](len);

  // Installs each of `methods` on `target` as a built-in method, unless the engine has it.
  function install(target, methods) {
    for (const key of ownKeys(methods)) {
      if (!hasOwnProperty(target, key)) {
        defineProperty(target, key, {
          __proto__: null, value: methods[key], writable: true, enumerable: false,
          configurable: true,
        });
      }
    }
  }

  // ---------------------------------------------------------------------------
  // Array.prototype: at (ES2022), findLast, findLastIndex, toReversed, toSorted,
  // toSpliced, with (ES2023). All generic: any array-like `this` works.
  // ---------------------------------------------------------------------------

  install(ArrayCtor.prototype, {
    at(index) {
      // The int32 tests spare a call in the common case (calls are what costs here).
      const o = typeof this === 'object' && this !== null ? this : toObject(this);
      let len = o.length;
      if (typeof len !== 'number' || (len | 0) !== len || len < 0) {
        len = toLength(len);
      }
      const relative = typeof index === 'number' && (index | 0) === index ?
        index : toIntegerOrInfinity(index);
      const k = relative >= 0 ? relative : len + relative;
      return k < 0 || k >= len ? undefined : o[k];
    },
    findLast(predicate) {
      const o = toObject(this);
      const len = lengthOfArrayLike(o);
      requireCallable(predicate);
      const thisArg = arguments[1];
      for (let k = len - 1; k >= 0; k--) {
        const value = o[k];
        // A direct call when there is no thisArg keeps the stack to one frame of ours.
        if (thisArg === undefined ?
          predicate(value, k, o) : call(predicate, thisArg, value, k, o)) {
          return value;
        }
      }
      return undefined;
    },
    findLastIndex(predicate) {
      const o = toObject(this);
      const len = lengthOfArrayLike(o);
      requireCallable(predicate);
      const thisArg = arguments[1];
      for (let k = len - 1; k >= 0; k--) {
        const value = o[k];
        if (thisArg === undefined ?
          predicate(value, k, o) : call(predicate, thisArg, value, k, o)) {
          return k;
        }
      }
      return -1;
    },
    toReversed() {
      const o = toObject(this);
      const len = lengthOfArrayLike(o);
      return arrayOf(len, (k) => o[len - k - 1]);
    },
    toSorted(comparefn) {
      requireComparator(comparefn);
      const o = toObject(this);
      const len = lengthOfArrayLike(o);
      // Holes are read through (they become undefined), then the engine's sort orders
      // the copy as SortCompare does: undefined last, without calling comparefn on it.
      return arraySort(arrayOf(len, (k) => o[k]), comparefn);
    },
    toSpliced(start, skipCount) {
      const o = toObject(this);
      const len = lengthOfArrayLike(o);
      const relativeStart = toIntegerOrInfinity(start);
      const actualStart = relativeStart < 0 ?
        max(len + relativeStart, 0) : min(relativeStart, len);
      const args = arguments;
      const insertCount = args.length > 2 ? args.length - 2 : 0;
      let actualSkipCount;
      if (args.length === 0) {
        actualSkipCount = 0;
      } else if (args.length === 1) {
        actualSkipCount = len - actualStart;
      } else {
        actualSkipCount = min(max(toIntegerOrInfinity(skipCount), 0), len - actualStart);
      }
      const newLen = len + insertCount - actualSkipCount;
      if (newLen > MAX_SAFE_INTEGER) {
        throw new TypeErrorCtor('invalid array length');
      }
      const insertEnd = actualStart + insertCount;
      return arrayOf(newLen, (i) => {
        if (i < actualStart) {
          return o[i];
        }
        if (i < insertEnd) {
          return args[i - actualStart + 2];
        }
        return o[i - insertCount + actualSkipCount];
      });
    },
    with(index, value) {
      const o = toObject(this);
      const len = lengthOfArrayLike(o);
      const relative = toIntegerOrInfinity(index);
      const actualIndex = relative >= 0 ? relative : len + relative;
      if (actualIndex >= len || actualIndex < 0) {
        throw new RangeErrorCtor('invalid array index');
      }
      return arrayOf(len, (k) => (k === actualIndex ? value : o[k]));
    },
  });

  // Array.prototype[@@unscopables] with the new names, in the specification's order.
  {
    const unscopables = { __proto__: null };
    for (const name of ['at', 'copyWithin', 'entries', 'fill', 'find', 'findIndex',
      'findLast', 'findLastIndex', 'flat', 'flatMap', 'includes', 'keys', 'toReversed',
      'toSorted', 'toSpliced', 'values']) {
      unscopables[name] = true;
    }
    defineProperty(ArrayCtor.prototype, Symbol.unscopables, {
      __proto__: null, value: unscopables, writable: false, enumerable: false,
      configurable: true,
    });
  }

  // ---------------------------------------------------------------------------
  // %TypedArray%.prototype: at, findLast, findLastIndex, toReversed, toSorted, with.
  // ---------------------------------------------------------------------------

  install(TypedArrayPrototype, {
    at(index) {
      const len = validateTypedArray(this);
      const relative = typeof index === 'number' && (index | 0) === index ?
        index : toIntegerOrInfinity(index);
      const k = relative >= 0 ? relative : len + relative;
      return k < 0 || k >= len ? undefined : this[k];
    },
    findLast(predicate) {
      const len = validateTypedArray(this);
      requireCallable(predicate);
      const thisArg = arguments[1];
      for (let k = len - 1; k >= 0; k--) {
        const value = this[k];
        if (thisArg === undefined ?
          predicate(value, k, this) : call(predicate, thisArg, value, k, this)) {
          return value;
        }
      }
      return undefined;
    },
    findLastIndex(predicate) {
      const len = validateTypedArray(this);
      requireCallable(predicate);
      const thisArg = arguments[1];
      for (let k = len - 1; k >= 0; k--) {
        const value = this[k];
        if (thisArg === undefined ?
          predicate(value, k, this) : call(predicate, thisArg, value, k, this)) {
          return k;
        }
      }
      return -1;
    },
    toReversed() {
      const len = validateTypedArray(this);
      const a = typedArraySameType(this, len);
      typedArraySet(a, this);
      return typedArrayReverse(a);
    },
    toSorted(comparefn) {
      requireComparator(comparefn);
      const len = validateTypedArray(this);
      const a = typedArraySameType(this, len);
      typedArraySet(a, this);
      return typedArraySort(a, comparefn);
    },
    with(index, value) {
      const len = validateTypedArray(this);
      const relative = toIntegerOrInfinity(index);
      const actualIndex = relative >= 0 ? relative : len + relative;
      const tag = typedArrayTag(this);
      // ToBigInt (asIntN keeps the value modulo 2^64, all a 64-bit element holds) or
      // ToNumber, before the index is checked.
      const numericValue = tag === 'BigInt64Array' || tag === 'BigUint64Array' ?
        bigIntAsIntN(64, value) : +value;
      if (actualIndex < 0 || actualIndex >= typedArrayLength(this)) {
        throw new RangeErrorCtor('invalid array index');
      }
      const a = typedArraySameType(this, len);
      typedArraySet(a, this);
      a[actualIndex] = numericValue;
      return a;
    },
  });

  // ---------------------------------------------------------------------------
  // String.prototype: at (ES2022), isWellFormed, toWellFormed (ES2024).
  // ---------------------------------------------------------------------------

  // A lone surrogate: with the u flag a well-formed pair is one code point, so only an
  // unpaired half matches. Only the engine's exec runs it, never a script's.
  const loneSurrogate = /[\uD800-\uDFFF]/gu;

  install(String.prototype, {
    at(index) {
      const s = typeof this === 'string' ? this : thisString(this);
      const len = s.length;
      const relative = typeof index === 'number' && (index | 0) === index ?
        index : toIntegerOrInfinity(index);
      const k = relative >= 0 ? relative : len + relative;
      return k < 0 || k >= len ? undefined : s[k];
    },
    isWellFormed() {
      const s = thisString(this);
      loneSurrogate.lastIndex = 0;
      return regExpExec(loneSurrogate, s) === null;
    },
    toWellFormed() {
      const s = thisString(this);
      let out = '';
      let from = 0;
      let match;
      loneSurrogate.lastIndex = 0;
      while ((match = regExpExec(loneSurrogate, s)) !== null) {
        out += stringSlice(s, from, match.index) + '\uFFFD';
        from = match.index + 1;
      }
      return from === 0 ? s : out + stringSlice(s, from);
    },
  });

  // ---------------------------------------------------------------------------
  // Object.hasOwn (ES2022), Object.groupBy and Map.groupBy (ES2024).
  // ---------------------------------------------------------------------------

  // ToPropertyKey: a computed key in a literal converts exactly once, as the spec does.
  function toPropertyKey(v) {
    const type = typeof v;
    if (type === 'string' || type === 'symbol') {
      return v;
    }
    if (!isObject(v)) {
      return `${v}`;
    }
    return ownKeys({ [v]: 0 })[0];
  }

  // GroupBy(items, callbackfn, keyCoercion): calls add(key, value) for each item, in
  // order. for-of is GetIterator/IteratorStep, and it closes the iterator when the
  // callback, the key coercion or add throws.
  function groupBy(items, callbackfn, toKey, add) {
    if (items == null) {
      throw new TypeErrorCtor('cannot convert to object');
    }
    requireCallable(callbackfn);
    let k = 0;
    for (const value of items) {
      if (k >= MAX_SAFE_INTEGER) {
        throw new TypeErrorCtor('too many elements');
      }
      add(toKey(callbackfn(value, k)), value);
      k++;
    }
  }

  install(ObjectCtor, {
    hasOwn(o, p) {
      return hasOwnProperty(toObject(o), p);
    },
    groupBy(items, callbackfn) {
      // The groups are gathered in the result itself: a prototype-less object keeps
      // its keys in the order of OrdinaryOwnPropertyKeys, which is the order the
      // specification's result has too (integer keys first, whatever the groups' order).
      const obj = { __proto__: null };
      groupBy(items, callbackfn, toPropertyKey, (key, value) => {
        const list = obj[key];
        if (list === undefined) {
          const first = newList();
          first[0] = value;
          obj[key] = first;
        } else {
          list[list.length] = value;
        }
      });
      for (const key of ownKeys(obj)) {
        createDataPropertyOrThrow(obj, key, listToArray(obj[key]));
      }
      return obj;
    },
  });

  install(MapCtor, {
    groupBy(items, callbackfn) {
      // Map keys are compared with SameValueZero: only -0 needs normalizing.
      const map = new MapCtor();
      groupBy(items, callbackfn, (key) => (key === 0 ? 0 : key), (key, value) => {
        const list = mapGet(map, key);
        if (list === undefined) {
          const first = newList();
          first[0] = value;
          mapSet(map, key, first);
        } else {
          list[list.length] = value;
        }
      });
      mapForEach(map, (list, key) => {
        mapSet(map, key, listToArray(list));
      });
      return map;
    },
  });

  // ---------------------------------------------------------------------------
  // Promise.withResolvers (ES2024).
  // ---------------------------------------------------------------------------

  install(PromiseCtor, {
    withResolvers() {
      // NewPromiseCapability(this).
      const C = this;
      if (!isConstructor(C)) {
        throw new TypeErrorCtor('not a constructor');
      }
      let resolve;
      let reject;
      const promise = new C((res, rej) => {
        if (resolve !== undefined || reject !== undefined) {
          throw new TypeErrorCtor('resolving function already set');
        }
        resolve = res;
        reject = rej;
      });
      requireCallable(resolve);
      requireCallable(reject);
      return { promise, resolve, reject };
    },
  });

  // ---------------------------------------------------------------------------
  // Array.fromAsync, as its TC39 proposal specifies it.
  // ---------------------------------------------------------------------------

  // IteratorClose after a throw: a failing return() is ignored, the error stands.
  function closeSyncIterator(iterator) {
    try {
      const ret = iterator.return;
      if (ret != null) {
        call(ret, iterator);
      }
    } catch {
      // The completion is already a throw.
    }
  }

  // %AsyncFromSyncIteratorPrototype%.next: the sync result, its value awaited; a
  // rejected value closes the sync iterator (unless it was done).
  async function asyncFromSyncNext(iterator, nextMethod) {
    const result = call(nextMethod, iterator);
    if (!isObject(result)) {
      throw new TypeErrorCtor('iterator must return an object');
    }
    const done = !!result.done;
    const resultValue = result.value;
    let value;
    try {
      value = await resultValue;
    } catch (error) {
      if (!done) {
        closeSyncIterator(iterator);
      }
      throw error;
    }
    return { value, done };
  }

  // %AsyncFromSyncIteratorPrototype%.return, as AsyncIteratorClose calls it.
  async function asyncFromSyncReturn(iterator) {
    const ret = getMethod(iterator, 'return');
    if (ret === undefined) {
      return { value: undefined, done: true };
    }
    const result = call(ret, iterator);
    if (!isObject(result)) {
      throw new TypeErrorCtor('iterator must return an object');
    }
    const done = !!result.done;
    return { value: await result.value, done };
  }

  async function fromAsync(C, asyncItems, mapfn, thisArg) {
    const mapping = mapfn !== undefined;
    if (mapping) {
      requireCallable(mapfn);
    }
    const usingAsyncIterator = getMethod(asyncItems, symbolAsyncIterator);
    const usingSyncIterator = usingAsyncIterator === undefined ?
      getMethod(asyncItems, symbolIterator) : undefined;

    if (usingAsyncIterator === undefined && usingSyncIterator === undefined) {
      // Neither async iterable nor iterable: an array-like.
      const arrayLike = ObjectCtor(asyncItems);
      const len = lengthOfArrayLike(arrayLike);
      const a = isConstructor(C) ? new C(len) : new ArrayCtor(len);
      for (let k = 0; k < len; k++) {
        let value = await arrayLike[k];
        if (mapping) {
          value = await (thisArg === undefined ?
            mapfn(value, k) : call(mapfn, thisArg, value, k));
        }
        createDataPropertyOrThrow(a, k, value);
      }
      a.length = len;
      return a;
    }

    const isAsync = usingAsyncIterator !== undefined;
    const iterator = call(isAsync ? usingAsyncIterator : usingSyncIterator, asyncItems);
    if (!isObject(iterator)) {
      throw new TypeErrorCtor('iterator must be an object');
    }
    const nextMethod = iterator.next;
    const a = isConstructor(C) ? new C() : [];
    for (let k = 0; ; k++) {
      const next = await (isAsync ?
        call(nextMethod, iterator) : asyncFromSyncNext(iterator, nextMethod));
      if (!isObject(next)) {
        throw new TypeErrorCtor('iterator must return an object');
      }
      if (next.done) {
        a.length = k;
        return a;
      }
      const nextValue = next.value;
      try {
        let value = nextValue;
        if (mapping) {
          value = await (thisArg === undefined ?
            mapfn(nextValue, k) : call(mapfn, thisArg, nextValue, k));
        }
        createDataPropertyOrThrow(a, k, value);
        if (k + 1 >= MAX_SAFE_INTEGER) {
          throw new TypeErrorCtor('too many elements');
        }
      } catch (error) {
        // AsyncIteratorClose after a throw: return() is called and awaited, its
        // failure ignored, and the error stands.
        try {
          if (isAsync) {
            const ret = getMethod(iterator, 'return');
            if (ret !== undefined) {
              await call(ret, iterator);
            }
          } else {
            await asyncFromSyncReturn(iterator);
          }
        } catch {
          // The completion is already a throw.
        }
        throw error;
      }
    }
  }

  install(ArrayCtor, {
    // A plain method, so that it reads as a built-in; the work is an async function.
    fromAsync(asyncItems) {
      return fromAsync(this, asyncItems, arguments[1], arguments[2]);
    },
  });

  // ---------------------------------------------------------------------------
  // WeakRef and FinalizationRegistry (ES2021)
  // ---------------------------------------------------------------------------

  // The engine's collector gives no hook for these, and the specification leaves
  // liveness to the implementation: a WeakRef keeps its target, and a registry
  // never calls its cleanup (it keeps no target alive either: it keeps tokens only).
  const isObjectOrSymbol = (v) =>
    (typeof v === 'object' && v !== null) || typeof v === 'function' || typeof v === 'symbol';
  const WeakMapCtor = WeakMap;
  const weakMapGet = uncurry(WeakMap.prototype.get);
  const weakMapSet = uncurry(WeakMap.prototype.set);
  const weakMapDelete = uncurry(WeakMap.prototype.delete);
  const targets = new WeakMapCtor();
  const registries = new WeakMapCtor();

  class WeakRef {
    constructor(target) {
      if (!isObjectOrSymbol(target)) {
        throw new TypeErrorCtor('WeakRef: invalid target');
      }
      weakMapSet(targets, this, target);
    }

    deref() {
      const target = isObject(this) ? weakMapGet(targets, this) : undefined;
      if (target === undefined) {
        throw new TypeErrorCtor('WeakRef.prototype.deref: receiver is not a WeakRef');
      }
      return target;
    }
  }

  class FinalizationRegistry {
    constructor(cleanupCallback) {
      if (typeof cleanupCallback !== 'function') {
        throw new TypeErrorCtor('FinalizationRegistry: cleanup must be callable');
      }
      weakMapSet(registries, this, new WeakMapCtor());
    }

    register(target, heldValue, unregisterToken) {
      const tokens = weakMapGet(registries, this);
      if (tokens === undefined) {
        throw new TypeErrorCtor('FinalizationRegistry.prototype.register: receiver is not a FinalizationRegistry');
      }
      if (!isObjectOrSymbol(target)) {
        throw new TypeErrorCtor('FinalizationRegistry.prototype.register: invalid target');
      }
      if (target === heldValue) {
        throw new TypeErrorCtor('FinalizationRegistry.prototype.register: target and holdings must not be same');
      }
      if (unregisterToken !== undefined) {
        if (!isObjectOrSymbol(unregisterToken) || typeof unregisterToken === 'symbol') {
          throw new TypeErrorCtor(`Invalid unregisterToken ('${String(unregisterToken)}')`);
        }
        weakMapSet(tokens, unregisterToken, true);
      }
      return undefined;
    }

    unregister(unregisterToken) {
      const tokens = weakMapGet(registries, this);
      if (tokens === undefined) {
        throw new TypeErrorCtor('FinalizationRegistry.prototype.unregister: receiver is not a FinalizationRegistry');
      }
      if (!isObjectOrSymbol(unregisterToken) || typeof unregisterToken === 'symbol') {
        throw new TypeErrorCtor(`Invalid unregisterToken ('${String(unregisterToken)}')`);
      }
      return weakMapDelete(tokens, unregisterToken);
    }
  }
  for (const C of [WeakRef, FinalizationRegistry]) {
    defineProperty(C.prototype, Symbol.toStringTag, {
      __proto__: null, value: C.name, writable: false, enumerable: false, configurable: true,
    });
    if (!hasOwnProperty(globalThis, C.name)) {
      defineProperty(globalThis, C.name, {
        __proto__: null, value: C, writable: true, enumerable: false, configurable: true,
      });
    }
  }

  // ---------------------------------------------------------------------------
  // Error.captureStackTrace (V8's, which Node code uses; the engine has stackTraceLimit)
  // ---------------------------------------------------------------------------

  const ErrorCtor = Error;
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const errorToString = uncurry(Error.prototype.toString);
  install(ErrorCtor, {
    // Gives obj a `stack` as the engine's errors have: obj's "Name: message" line, then
    // the frames of the caller.
    captureStackTrace(obj) {
      if (!isObject(obj)) {
        throw new TypeErrorCtor('Invalid argument');
      }
      // The frames below the new error's header line and this function's own frame.
      let stack = new ErrorCtor().stack;
      if (typeof stack === 'string') {
        const line = stringIndexOf(stack, '\n');
        const start = line < 0 ? -1 : stringIndexOf(stack, '\n', line + 1);
        let header;
        try {
          header = errorToString(obj);
        } catch {
          header = 'Error';
        }
        stack = start < 0 ? header : `${header}\n${stringSlice(stack, start + 1)}`;
      }
      defineProperty(obj, 'stack', {
        __proto__: null, value: stack, writable: true, enumerable: false, configurable: true,
      });
    },
  });

  // ---------------------------------------------------------------------------
  // Date strings name the time zone, as V8's do (the guest's zone is always UTC)
  // ---------------------------------------------------------------------------

  const DatePrototype = Date.prototype;
  const dateToString = uncurry(DatePrototype.toString);
  const dateToTimeString = uncurry(DatePrototype.toTimeString);
  const ZONE = ' (Coordinated Universal Time)';
  const withZone = (s) => (s === 'Invalid Date' ? s : s + ZONE);
  defineProperty(DatePrototype, 'toString', {
    __proto__: null, writable: true, enumerable: false, configurable: true,
    value: { toString() { return withZone(dateToString(this)); } }.toString,
  });
  defineProperty(DatePrototype, 'toTimeString', {
    __proto__: null, writable: true, enumerable: false, configurable: true,
    value: { toTimeString() { return withZone(dateToTimeString(this)); } }.toTimeString,
  });

  // ---------------------------------------------------------------------------
  // Number.prototype.toString(radix) for fractions and beyond 2^53
  // ---------------------------------------------------------------------------

  // The engine prints such numbers in base 10 whatever the radix. This gives the
  // digits the specification leaves to the implementation as V8 does: the shortest
  // fraction that reads back as the same double (digits while they carry
  // information, rounding half to even at the end), and integer digits below the
  // double's precision as zeros.
  const numberToString = uncurry(Number.prototype.toString);
  const numberIsFinite = Number.isFinite;
  const thisNumberValue = uncurry(Number.prototype.valueOf);
  const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
  const f64 = new Float64Array(1);
  const u64 = new BigUint64Array(f64.buffer);
  const { floor } = Math;
  // The next double above a finite non-negative x.
  function nextUp(x) {
    f64[0] = x;
    u64[0] += 1n;
    return f64[0];
  }
  function radixString(value, radix) {
    const negative = value < 0;
    if (negative) {
      value = -value;
    }
    let integer = floor(value);
    let fraction = value - integer;
    let delta = 0.5 * (nextUp(value) - value);
    if (!(delta > 0)) {
      delta = nextUp(0);
    }
    const fractionDigits = [];
    if (fraction >= delta) {
      for (;;) {
        fraction *= radix;
        delta *= radix;
        const digit = floor(fraction);
        fractionDigits[fractionDigits.length] = digit;
        fraction -= digit;
        if (fraction > 0.5 || (fraction === 0.5 && (digit & 1))) {
          if (fraction + delta > 1) {
            // Round up, carrying into the digits already written.
            let i = fractionDigits.length - 1;
            for (;;) {
              if (i < 0) {
                integer += 1;
                fractionDigits.length = 0;
                break;
              }
              if (fractionDigits[i] + 1 < radix) {
                fractionDigits[i] += 1;
                fractionDigits.length = i + 1;
                break;
              }
              i--;
            }
            break;
          }
        }
        if (!(fraction >= delta)) {
          break;
        }
      }
    }
    // Integer digits; those below the double's precision are zeros.
    let head = '';
    while (integer / radix >= 9007199254740992) {
      integer /= radix;
      head += '0';
    }
    let intDigits = '';
    do {
      const remainder = integer % radix;
      intDigits = DIGITS[remainder | 0] + intDigits; // truncated, as V8 does past 2^53
      integer = (integer - remainder) / radix;
    } while (integer > 0);
    let text = intDigits + head;
    if (fractionDigits.length) {
      text += '.';
      for (let i = 0; i < fractionDigits.length; i++) {
        text += DIGITS[fractionDigits[i]];
      }
    }
    return negative ? '-' + text : text;
  }
  defineProperty(Number.prototype, 'toString', {
    __proto__: null, writable: true, enumerable: false, configurable: true,
    value: {
      toString(radix) {
        const x = thisNumberValue(this);
        if (radix === undefined) {
          return numberToString(x);
        }
        const r = trunc(+radix);
        // The engine's own: base 10, a bad radix (its RangeError), non-finite
        // values and the integers it prints exactly.
        if (!(r >= 2 && r <= 36) || r === 10 || !numberIsFinite(x) ||
            (x === trunc(x) && x < 9007199254740992 && x > -9007199254740992)) {
          return numberToString(x, r);
        }
        return radixString(x, r);
      },
    }.toString,
  });
})();
