// A product too large for the engine's multiplication must be a catchable
// error, like any other allocation the engine cannot make.
const a = (1n << 50000000n) - 1n;
try {
  return (a * a) > 0n;
} catch (e) {
  return e.name;
}
