const o = {
  toString() {
    for (;;) {}
  },
};
return 'value: ' + o;
