// Out of memory is catchable; once the garbage is dropped the run goes on.
let a = [];
let msg;
try {
  for (;;) a.push('x'.repeat(1000) + a.length);
} catch (e) {
  msg = `${e.name}: ${e.message}`;
}
const n = a.length;
a = null;
const b = new Array(100000).fill('y').join('').length;
return [msg, n > 1000, b];
