const double = async (x) => {
  await null;
  return x * 2;
};
const a = await double(1);
const b = await double(a);
const [c, d] = await Promise.all([double(b), double(10)]);
console.log(a, b, c, d);
for await (const x of [Promise.resolve('p'), 'q']) {
  console.log(x);
}
return c + d;
