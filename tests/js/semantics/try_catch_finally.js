// try/catch/finally: order of evaluation and which completion wins.
const log = [];
function order() {
  try {
    log.push('try');
    throw new Error('boom');
  } catch (e) {
    log.push(`catch ${e.message}`);
    return 'from catch';
  } finally {
    log.push('finally');
  }
}
console.log(order(), log.join(' > '));

function finallyOverridesReturn() {
  try {
    return 'try';
  } finally {
    return 'finally';
  }
}
function finallyOverridesThrow() {
  try {
    throw new Error('lost');
  } finally {
    return 'finally wins';
  }
}
function finallyThrowReplaces() {
  try {
    throw new Error('first');
  } finally {
    throw new Error('second');
  }
}
console.log(finallyOverridesReturn(), finallyOverridesThrow());
try {
  finallyThrowReplaces();
} catch (e) {
  console.log('caught', e.message);
}

function returnValueIsEvaluatedBeforeFinally() {
  let x = 1;
  try {
    return x;
  } finally {
    x = 2;
  }
}
console.log(returnValueIsEvaluatedBeforeFinally());

// Catch without a binding, nested rethrow, and finally in loops.
try {
  JSON.parse('{');
} catch {
  console.log('optional catch binding');
}
function nested() {
  try {
    try {
      throw new TypeError('inner');
    } catch (e) {
      throw new RangeError(`wrapped ${e.name}`);
    } finally {
      console.log('inner finally');
    }
  } catch (e) {
    return `${e.name}: ${e.message}`;
  } finally {
    console.log('outer finally');
  }
}
console.log(nested());
const seen = [];
for (let i = 0; i < 4; i++) {
  try {
    if (i === 1) continue;
    if (i === 3) break;
    seen.push(`body ${i}`);
  } finally {
    seen.push(`finally ${i}`);
  }
}
console.log(seen.join(', '));

// Anything can be thrown and caught.
for (const value of [42, 'str', null, undefined, { code: 7 }, [1, 2], Symbol.for('s')]) {
  try {
    throw value;
  } catch (e) {
    console.log(typeof e, e === value);
  }
}

// Errors of the engine have the right classes.
const probes = [
  () => null.x,
  () => undefinedName,
  () => new Array(-1),
  () => 'x'.repeat(-1),
  () => (1).toFixed(101),
  () => BigInt(1.5),
  () => Symbol() + '',
  () => (class { #p; static read(o) { return o.#p; } }).read({}),
  () => { 'use strict'; Object.freeze([1]).push(2); },
  () => decodeURIComponent('%'),
  () => eval('let let = 1'),
  () => JSON.parse('[1,]'),
  () => { const c = 1; c = 2; },
  () => structuredCloneMissing(),
];
for (const probe of probes) {
  try {
    probe();
    console.log('no error');
  } catch (e) {
    console.log(e.constructor.name, e instanceof Error);
  }
}
