// A thrown value that is not an Error has no stack: capsa prints it after
// "Uncaught" and exits with status 1 (Node prints the source line instead).
console.log('printed before the throw');
function fail() {
  throw 'a plain string';
}
fail();
console.log('never printed');
