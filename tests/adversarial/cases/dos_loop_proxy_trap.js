const p = new Proxy({}, {
  has() {
    for (;;) {}
  },
});
return 'x' in p;
