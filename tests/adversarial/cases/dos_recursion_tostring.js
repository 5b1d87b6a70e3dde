const o = {
  toString() {
    return 'x' + o;
  },
};
return String(o);
