const o = {
  valueOf() {
    return o * 2;
  },
};
return +o;
