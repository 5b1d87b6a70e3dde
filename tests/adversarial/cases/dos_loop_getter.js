const o = {
  get x() {
    for (;;) {}
  },
};
return o.x;
