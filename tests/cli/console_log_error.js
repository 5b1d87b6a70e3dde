// console.log of an error prints "Name: message" and its frames, as Node does,
// keeping Error.stackTraceLimit frames.
function inner() {
  return new TypeError('logged, not thrown');
}
function outer() {
  return inner();
}
console.log(outer());
console.error({ wrapped: outer() });
Error.stackTraceLimit = 1;
console.log(outer());
