// node:assert: the assertions, their AssertionError fields and messages.
const assert = require('node:assert');
const strict = require('node:assert/strict');
console.log(typeof assert, strict === assert.strict, require('assert') === assert);
const check = (label, f) => {
  try {
    f();
    console.log(label, 'passed');
  } catch (e) {
    console.log(label, e.name, e.code, JSON.stringify(e.message), e.generatedMessage,
      e.operator, e instanceof assert.AssertionError);
  }
};
check('ok', () => assert(1));
check('ok msg', () => assert(0, 'custom message'));
check('equal', () => assert.equal(1, '1'));
check('equal fail', () => assert.equal(1, 2));
check('notEqual', () => assert.notEqual(1, 1));
check('strictEqual', () => assert.strictEqual(1, '1'));
check('strictEqual str', () => assert.strictEqual('hello world', 'hello there'));
check('notStrictEqual', () => assert.notStrictEqual(NaN, NaN));
check('deepEqual', () => assert.deepEqual({ a: [1, 2] }, { a: [1, '2'] }));
check('deepStrictEqual', () => assert.deepStrictEqual({ a: [1, 2], b: 'x' }, { a: [1, 3], b: 'x' }));
check('deepStrictEqual ok', () => assert.deepStrictEqual(new Map([[1, { x: 1 }]]), new Map([[1, { x: 1 }]])));
check('notDeepStrictEqual', () => assert.notDeepStrictEqual([1], [1]));
check('throws', () => assert.throws(() => { throw new TypeError('bad'); }, TypeError));
check('throws regexp', () => assert.throws(() => { throw new Error('bad thing'); }, /thing/));
check('throws object', () => assert.throws(() => { throw new Error('bad'); }, { message: 'good' }));
check('throws none', () => assert.throws(() => {}));
check('doesNotThrow', () => assert.doesNotThrow(() => { throw new Error('oops'); }));
check('match', () => assert.match('abc', /x/));
check('doesNotMatch', () => assert.doesNotMatch('abc', /b/));
check('fail', () => assert.fail('failed on purpose'));
check('ifError', () => assert.ifError(null));
check('ifError err', () => assert.ifError(new Error('from callback')));
check('strict.equal', () => strict.equal(1, '1'));
check('error message', () => assert.strictEqual(1, 2, new RangeError('own error')));
const e = new assert.AssertionError({ actual: 1, expected: 2, operator: 'strictEqual' });
console.log(e.name, e.code, e.actual, e.expected, e.operator);
(async () => {
  try {
    await assert.rejects(Promise.resolve(1));
  } catch (err) {
    console.log('rejects', err.code, JSON.stringify(err.message));
  }
  await assert.rejects(Promise.reject(new Error('x')), /x/);
  await assert.doesNotReject(Promise.resolve());
  console.log('async assertions done');
})();
