// Error cause (ES2022): new XError(message, { cause }) gives the error an own,
// non-enumerable `cause` when the options object has one; AggregateError takes the
// options third. Errors print without frames so that V8's and QuickJS's agree.
Error.stackTraceLimit = 0;
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};
const describe = (e) => {
  const d = Object.getOwnPropertyDescriptor(e, 'cause');
  return d ? `value=${String(d.value)} w=${d.writable} e=${d.enumerable} c=${d.configurable}` : 'no own cause';
};

for (const C of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError]) {
  show(C.name, () => {
    const e = new C('m', { cause: 'why' });
    return [describe(e), e instanceof C, e.message];
  });
  show(`${C.name} called`, () => describe(C('m', { cause: 1 })));
}
show('AggregateError', () => {
  const e = new AggregateError([1], 'm', { cause: 'why' });
  return [describe(e), e.errors, e.message];
});
show('AggregateError options second', () => describe(new AggregateError([1], { cause: 'no' })));
show('AggregateError property order', () => Object.getOwnPropertyNames(new AggregateError([], 'm', { cause: 0 }))
  .filter((k) => k !== 'stack'));
show('Error property order', () => Object.getOwnPropertyNames(new Error('m', { cause: 0 }))
  .filter((k) => k !== 'stack'));

show('no options', () => describe(new Error('m')));
show('options without cause', () => describe(new Error('m', {})));
show('cause undefined', () => describe(new Error('m', { cause: undefined })));
show('cause null', () => describe(new Error('m', { cause: null })));
show('inherited cause', () => describe(new Error('m', Object.create({ cause: 'proto' }))));
show('options a string', () => describe(new Error('m', 'cause')));
show('options a function', () => describe(new Error('m', Object.assign(() => {}, { cause: 'fn' }))));
show('message undefined', () => {
  const e = new Error(undefined, { cause: 1 });
  return [Object.hasOwn(e, 'message'), e.cause];
});
show('cause object kept', () => {
  const inner = new TypeError('inner');
  return new Error('outer', { cause: inner }).cause === inner;
});
show('not on the prototype', () => ['cause' in Error.prototype, 'cause' in new Error('m')]);
show('keys and JSON', () => {
  const e = new Error('m', { cause: 'c' });
  return [Object.keys(e), JSON.stringify(e)];
});
show('has then get', () => {
  const log = [];
  const options = new Proxy({ cause: 'c' }, {
    has(t, k) { log.push(`has ${String(k)}`); return Reflect.has(t, k); },
    get(t, k) { log.push(`get ${String(k)}`); return Reflect.get(t, k); },
  });
  new Error('m', options);
  return log.join(', ');
});
show('message converted before cause', () => {
  const log = [];
  new Error({ toString() { log.push('message'); return 'm'; } }, { get cause() { log.push('cause'); return 1; } });
  return log.join(', ');
});
show('getter throws', () => new Error('m', { get cause() { throw new RangeError('from getter'); } }));
show('subclass', () => {
  class AppError extends Error {
    constructor(message, options) {
      super(message, options);
      this.name = 'AppError';
    }
  }
  const e = new AppError('failed', { cause: new Error('root') });
  return [e instanceof AppError, e instanceof Error, e.cause.message, describe(e).startsWith('value=Error')];
});
show('Reflect.construct', () => {
  class Base {}
  const e = Reflect.construct(RangeError, ['m', { cause: 9 }], Base);
  return [Object.getPrototypeOf(e) === Base.prototype, e.cause];
});
show('wrap in catch', () => {
  try {
    try {
      JSON.parse('{');
    } catch (err) {
      throw new Error('config is broken', { cause: err });
    }
  } catch (e) {
    return [e.message, e.cause.name];
  }
});

console.log(new Error('outer', { cause: new Error('inner') }));
console.log(new Error('with primitive cause', { cause: 42 }));
console.log(new Error('with undefined cause', { cause: undefined }));
console.log(new TypeError('nested', { cause: new RangeError('middle', { cause: 'root' }) }));
console.log({ wrapped: new Error('in object', { cause: 'c' }) });
console.log(new AggregateError([new Error('one')], 'agg', { cause: 'c' }));
