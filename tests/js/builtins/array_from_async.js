// Array.fromAsync, as its TC39 proposal specifies it. Node 20 does not have it: the
// expected output was written by hand from the proposal's specification, in the layout
// Node 20's console gives those values.
const show = async (label, f) => {
  try {
    console.log(label, await f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

async function* agen() {
  yield 1;
  yield Promise.resolve(2);
  yield 3;
}
// An iterator that logs what is done to it.
function logged(log, values, extra = {}) {
  let i = 0;
  return {
    next() {
      log.push(`next ${i}`);
      return i < values.length ? { value: values[i++], done: false } : { value: undefined, done: true };
    },
    return() {
      log.push('return');
      return {};
    },
    ...extra,
  };
}

(async () => {
  await show('async generator', () => Array.fromAsync(agen()));
  await show('sync iterable of promises', () => Array.fromAsync([Promise.resolve('a'), 'b', Promise.resolve('c')]));
  await show('set', () => Array.fromAsync(new Set([1, 2])));
  await show('string', () => Array.fromAsync('hi'));
  await show('array-like', () => Array.fromAsync({ length: 3, 0: 'x', 1: Promise.resolve('y') }));
  await show('array-like, negative length', () => Array.fromAsync({ length: -1 }));
  await show('mapfn', () => Array.fromAsync([1, 2, 3], (x, i) => x * 10 + i));
  await show('async mapfn', () => Array.fromAsync(agen(), async (x) => x * 2));
  await show('mapfn this', () => Array.fromAsync([1], function () { return this.v; }, { v: 'this' }));
  await show('mapfn arguments', () => Array.fromAsync({ length: 1, 0: 'a' }, function () { return arguments.length; }));
  await show('mapfn gets the awaited value', () => Array.fromAsync([Promise.resolve(5)], (x) => typeof x));
  await show('async mapfn values not awaited twice', () => Array.fromAsync(agen(), (x) => Promise.resolve(x)));
  await show('empty', () => Array.fromAsync([]));
  await show('returns a promise', () => {
    const p = Array.fromAsync([]);
    return [p instanceof Promise, Object.getPrototypeOf(p) === Promise.prototype];
  });
  await show('async iterator preferred', () => Array.fromAsync({
    [Symbol.asyncIterator]: () => agen(),
    [Symbol.iterator]: () => { throw new Error('not used'); },
  }));
  await show('holes', async () => {
    const r = await Array.fromAsync([1, , 3]);
    return [r, Object.keys(r)];
  });

  // Errors reject the promise; nothing throws synchronously.
  await show('sync throw becomes a rejection', () => {
    let p;
    try {
      p = Array.fromAsync(null);
    } catch (e) {
      return 'threw synchronously';
    }
    return p.then(() => 'fulfilled', (e) => `rejected ${e.name}`);
  });
  await show('undefined', () => Array.fromAsync(undefined));
  await show('number', () => Array.fromAsync(5));
  await show('mapfn not callable', () => Array.fromAsync([1], 'x'));
  await show('mapfn null', () => Array.fromAsync([1], null));
  await show('mapfn checked first', async () => {
    const log = [];
    const items = { get [Symbol.asyncIterator]() { log.push('get asyncIterator'); return undefined; } };
    await Array.fromAsync(items, {}).catch((e) => log.push(e.name));
    return log;
  });
  await show('asyncIterator not callable', () => Array.fromAsync({ [Symbol.asyncIterator]: 1 }));
  await show('iterator returns a primitive', () => Array.fromAsync({ [Symbol.iterator]: () => 1 }));
  await show('next returns a primitive', () => Array.fromAsync({ [Symbol.asyncIterator]: () => ({ next: () => 1 }) }));
  await show('rejected element', () => Array.fromAsync([Promise.reject(new RangeError('bad'))]));
  await show('async iterator throws', async () => {
    async function* failing() {
      yield 1;
      throw new SyntaxError('broken');
    }
    return Array.fromAsync(failing());
  });

  // Iterators are closed when mapfn fails, not when next() fails.
  await show('sync iterator closed when mapfn throws', async () => {
    const log = [];
    const err = await Array.fromAsync({ [Symbol.iterator]: () => logged(log, [1, 2, 3]) }, (x) => {
      if (x === 2) throw new TypeError('map failed');
      return x;
    }).catch((e) => e.name);
    return [err, log];
  });
  await show('async iterator closed when mapfn rejects', async () => {
    const log = [];
    const iter = logged(log, [1, 2]);
    const err = await Array.fromAsync({ [Symbol.asyncIterator]: () => iter }, async () => {
      throw new EvalError('async map failed');
    }).catch((e) => e.name);
    return [err, log];
  });
  await show('failing return() ignored', async () => {
    const iter = logged([], [1], { return() { throw new Error('from return'); } });
    return Array.fromAsync({ [Symbol.iterator]: () => iter }, () => { throw new URIError('map'); })
      .catch((e) => e.name);
  });
  await show('sync iterator closed when a value rejects', async () => {
    const log = [];
    const err = await Array.fromAsync({ [Symbol.iterator]: () => logged(log, [1, Promise.reject(new RangeError('r')), 3]) })
      .catch((e) => e.name);
    return [err, log];
  });
  await show('not closed when done', async () => {
    const log = [];
    const r = await Array.fromAsync({ [Symbol.iterator]: () => logged(log, [1, 2]) });
    return [r, log];
  });
  await show('next read once', async () => {
    let reads = 0;
    const values = [1, 2, 3];
    const iter = {};
    Object.defineProperty(iter, 'next', {
      get() {
        reads++;
        return () => (values.length ? { value: values.shift(), done: false } : { done: true });
      },
    });
    const r = await Array.fromAsync({ [Symbol.iterator]: () => iter });
    return [r, reads];
  });

  // `this` as the constructor of the result.
  class Box {
    constructor(...args) {
      this.args = args;
    }
  }
  await show('constructor this, iterable', async () => {
    const r = await Array.fromAsync.call(Box, [1, 2]);
    return [r instanceof Box, r.args, r.length, r[0], r[1]];
  });
  await show('constructor this, array-like', async () => {
    const r = await Array.fromAsync.call(Box, { length: 2, 0: 'a', 1: 'b' });
    return [r instanceof Box, r.args, r.length, r[1]];
  });
  await show('non-constructor this', async () => {
    const r = await Array.fromAsync.call({}, [1]);
    return Array.isArray(r);
  });
  await show('arrow this', async () => Array.isArray(await Array.fromAsync.call(() => {}, [1])));
  await show('element not definable', async () => {
    function Frozen() {
      return Object.freeze({});
    }
    return Array.fromAsync.call(Frozen, [1]);
  });
  await show('length not writable', async () => {
    function Fixed() {
      return Object.defineProperty({}, 'length', { value: 0, writable: false });
    }
    return Array.fromAsync.call(Fixed, []);
  });

  await show('shape', () => {
    const d = Object.getOwnPropertyDescriptor(Array, 'fromAsync');
    return [Array.fromAsync.length, Array.fromAsync.name, d.writable, d.enumerable, d.configurable,
      Object.hasOwn(Array.fromAsync, 'prototype')];
  });
  await show('new', () => new Array.fromAsync([]));

  // Elements are taken one at a time: the next is not asked for before the last is done.
  await show('sequential', async () => {
    const log = [];
    let i = 0;
    const iter = {
      [Symbol.asyncIterator]() { return this; },
      next() {
        const n = i++;
        log.push(`next ${n}`);
        return Promise.resolve(n < 2 ? { value: n, done: false } : { done: true });
      },
    };
    await Array.fromAsync(iter, async (v) => {
      log.push(`map ${v}`);
      await null;
      log.push(`mapped ${v}`);
      return v;
    });
    return log;
  });
})();
