Error.stackTraceLimit = 0;
console.log(new Error('plain'));
console.log(new TypeError('type'), new RangeError(''), new Error());
console.log({ err: new Error('in object') }, [new Error('in array')]);
const coded = new Error('with props');
coded.code = 'E_CODE';
coded.details = { retry: false };
console.log(coded);
class MyError extends Error {}
console.log(new MyError('subclass'));
class NamedError extends Error { constructor(m) { super(m); this.name = 'NamedError'; } }
console.log(new NamedError('named'));
console.log(new AggregateError([new Error('first'), 'second'], 'many'));
const renamed = new Error('msg');
renamed.name = 'Renamed';
console.log(renamed);
console.log(new Error('multi\nline message'));
console.error(new Error('to stderr'));
