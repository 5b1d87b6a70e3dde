async function f(n) {
  await null;
  return f(n + 1);
}
await f(0);
