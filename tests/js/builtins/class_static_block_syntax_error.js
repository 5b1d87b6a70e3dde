// A static block with a `return` in it does not compile: the SyntaxError ends the run
// with status 1. The class is compiled from a string here so that the error carries no
// file path (its stack is dropped); the script up to that point has run.
console.log('before the class');
try {
  new Function('class Settings {\n  static {\n    return;\n  }\n}');
} catch (err) {
  throw Object.defineProperty(err, 'stack', { value: '' });
}
console.log('never printed');
