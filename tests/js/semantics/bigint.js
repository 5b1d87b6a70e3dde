// BigInt: exact integer arithmetic, truncating division, conversions, mixing rules.
const big = 2n ** 100n;
console.log(big, big.toString(), big.toString(16), big.toString(36), typeof big);
console.log(123456789012345678901234567890n * 987654321098765432109876543210n);
console.log(7n / 2n, -7n / 2n, 7n % 3n, -7n % 3n, 7n % -3n, (-2n) ** 3n, 0n === -0n, -0n);
console.log(1n << 64n, -1n >> 1000n, 255n & 15n, 5n | 2n, 6n ^ 3n, ~0n, -(-5n));
console.log(BigInt(42), BigInt('0x1f'), BigInt('0o17'), BigInt('0b101'), BigInt('  123  '), BigInt(''), BigInt(true), BigInt(Number.MAX_SAFE_INTEGER) + 2n);
console.log(BigInt.asIntN(8, 255n), BigInt.asIntN(8, 128n), BigInt.asUintN(8, -1n), BigInt.asUintN(64, -1n), BigInt.asIntN(64, 2n ** 63n));
console.log(1n == 1, 1n === 1, 2n > 1, 1n < 1.5, 10n > 9.999, [3n, 1, 2n, -1].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
console.log(Number(2n ** 64n), Number(2n ** 53n + 1n), parseInt('123n'), String(10n), `${-3n}`, 5n + '', Boolean(0n), !!1n);
console.log(BigInt(Number.MAX_VALUE) > 10n ** 307n, (10n ** 30n).toLocaleString === undefined, Object(1n) instanceof BigInt);

for (const bad of [() => 1n + 1, () => BigInt(1.5), () => BigInt('1.5'), () => BigInt('abc'), () => 1n / 0n, () => Math.max(1n), () => +1n, () => BigInt(NaN), () => 2n ** -1n, () => new BigInt(1)]) {
  try {
    console.log('no error', bad());
  } catch (e) {
    console.log(e.constructor.name);
  }
}

// Factorial and Fibonacci beyond 2^53.
let f = 1n;
for (let i = 1n; i <= 30n; i++) f *= i;
console.log(f);
let [a, b] = [0n, 1n];
for (let i = 0; i < 100; i++) [a, b] = [b, a + b];
console.log(a, a.toString().length);
const isqrt = (n) => {
  let x = n, y = (x + 1n) / 2n;
  while (y < x) [x, y] = [y, (y + n / y) / 2n];
  return x;
};
console.log(isqrt(10n ** 40n + 12345n), isqrt(2n * 10n ** 30n));
console.log(JSON.stringify({ n: String(123n) }), BigInt.prototype.toJSON);
