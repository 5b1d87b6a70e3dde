function* g() {
  for (;;) yield 1;
}
for (const x of g()) {}
