function* g() {
  yield* g();
}
g().next();
