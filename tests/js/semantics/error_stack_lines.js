// Stack traces name the functions of the user's code with the line of each call.
// The stack starts with "Name: message" as V8's does, but QuickJS writes frames as
// "    at name (file:line)", without columns, so this golden comes from capsa, not
// Node; each line number was checked against this file.
// The directory of the file is removed from the frames, as it depends on the checkout.
function show(e) {
  const stack = e.stack.replace(/\([^()]*\/([^/()]+:\d+)\)/g, '($1)');
  console.log(`${stack}\n`);
}

function level3() {
  throw new RangeError('deep');
}
function level2() {
  return level3();
}
function level1() {
  return level2() + 1;
}
try {
  level1();
} catch (e) {
  show(e);
}

const arrow = (o) => o.missing.property;
class Shape {
  constructor(kind) {
    if (!kind) {
      throw new TypeError('kind required');
    }
  }
  get area() {
    return arrow({});
  }
  static make() {
    return new Shape('');
  }
}
try {
  new Shape('square').area;
} catch (e) {
  show(e);
}
try {
  Shape.make();
} catch (e) {
  show(e);
}

// Callbacks run by native functions: the native frame appears between them.
// A call written over several lines is reported at the line where its
// arguments end (60 here), where V8 reports the line where it starts (55).
try {
  [1, 2, 3].map((x) => {
    if (x === 2) {
      null.x;
    }
    return x;
  });
} catch (e) {
  show(e);
}

// The stack is taken where the error is created, not where it is thrown.
function makeError() {
  return new Error('made here');
}
function throwIt(err) {
  throw err;
}
try {
  throwIt(makeError());
} catch (e) {
  show(e);
}

// A rethrow keeps the original stack.
try {
  try {
    level3();
  } catch (inner) {
    throw inner;
  }
} catch (e) {
  show(e);
}

// An expression over several lines: the line of the failing call.
try {
  const value = [1, 2, 3]
    .filter((x) => x > 1)
    .map((x) => x * 2)
    .reduce((a, b) => a + b.undefinedMethod(), 0);
  console.log(value);
} catch (e) {
  show(e);
}

// Errors from JSON.parse and from the engine itself.
try {
  JSON.parse('{"a": }');
} catch (e) {
  console.log(e.name, e instanceof SyntaxError);
}
try {
  undefinedFunction();
} catch (e) {
  show(e);
}

// A script-defined error class with its own name: as in V8, the stack starts where
// the error is made, below the constructors of the class and its parents.
class HttpError extends Error {
  constructor(status) {
    super(`status ${status}`);
    this.name = 'HttpError';
    this.status = status;
  }
}
try {
  throw new HttpError(404);
} catch (e) {
  show(e);
  console.log(e instanceof HttpError, e instanceof Error, e.status);
}
