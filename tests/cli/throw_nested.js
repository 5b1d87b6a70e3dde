// The stack names each function with the line of the call.
function inner(x) {
  if (x > 1) {
    throw new RangeError(`too big: ${x}`);
  }
  return x;
}

const outer = (v) => inner(v * 2);

class Widget {
  method() {
    return outer(3);
  }
}

console.log('before');
new Widget().method();
console.log('never printed');
