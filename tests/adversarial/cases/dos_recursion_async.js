// The synchronous part of each async call recurses.
async function f() {
  return f();
}
await f();
