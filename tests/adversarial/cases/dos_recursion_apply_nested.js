// Each level passes 60,000 arguments on: the memory of the frames runs out.
function f(n, ...rest) {
  return n === 0 ? rest.length : f.apply(null, [n - 1, ...rest]);
}
return f(1000, ...new Array(60000).fill(0));
