console.log('before');
function fail() {
  throw new TypeError('wrong type');
}
fail();
