// Optional chaining, nullish coalescing and logical assignment (ES2020/2021).
const data = { user: { name: 'Ann', address: null, tags: ['a'], greet() { return `hi ${this.name}`; } } };
console.log(data.user?.name, data.nobody?.name, data.user.address?.city, data.user?.tags?.[0], data.user?.tags?.[5]);
console.log(data.user.greet?.(), data.user.missing?.(), data.nobody?.greet(), typeof data.user?.['greet']);
console.log(data.nobody?.a.b.c.d, (data.nobody?.a)?.b);
let calls = 0;
const side = () => { calls++; return 'x'; };
data.nobody?.[side()];
console.log('short-circuit skipped the call:', calls === 0);
try {
  (data.nobody?.a).b;
} catch (e) {
  console.log('parentheses end the chain:', e.constructor.name);
}
try {
  data.user.name.toUpperCase?.().missing();
} catch (e) {
  console.log('the chain goes on after a present value:', e.constructor.name);
}
const fnOrNull = null;
console.log(fnOrNull?.(1), delete data.nobody?.x, null?.[0], undefined?.length);

console.log(null ?? 'default', undefined ?? 'default', 0 ?? 'default', '' ?? 'default', false ?? 'default', NaN ?? 'd');
console.log(0 || 'or', '' || 'or', 0 ?? 'nullish', (null || undefined) ?? 'both');
console.log(data.user.address?.city ?? 'no city', data.user?.name ?? 'no name');

const settings = { retries: 0, name: '', missing: undefined, timeout: null };
settings.retries ||= 3;
settings.name ??= 'unnamed';
settings.missing ??= 'filled';
settings.timeout ??= 1000;
settings.flag &&= 'never';
settings.retries &&= settings.retries * 2;
console.log(settings);

let evaluated = 0;
const target = { value: 'set' };
target.value ??= (evaluated++, 'not used');
target.value ||= (evaluated++, 'not used');
console.log(target.value, 'right sides evaluated:', evaluated);
const frozen = Object.freeze({ present: 1 });
frozen.present ??= 2;
console.log(frozen.present);
