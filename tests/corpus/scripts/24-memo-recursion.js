// Memoised recursion: Fibonacci with BigInt, coin change, edit distance, LCS.
const memo = (fn) => {
  const cache = new Map();
  const wrapped = (...args) => {
    const key = args.join(',');
    if (!cache.has(key)) cache.set(key, fn(...args));
    return cache.get(key);
  };
  wrapped.cache = cache;
  return wrapped;
};
const fib = memo((n) => (n < 2 ? BigInt(n) : fib(n - 1) + fib(n - 2)));
console.log(fib(10), fib(90), fib(150).toString().length, fib.cache.size);

const coins = [1, 5, 10, 25];
const ways = memo((amount, i) => {
  if (amount === 0) return 1;
  if (amount < 0 || i >= coins.length) return 0;
  return ways(amount - coins[i], i) + ways(amount, i + 1);
});
console.log([1, 10, 100, 250].map((a) => `${a}c: ${ways(a, 0)} ways`));

function minCoins(amount, denoms) {
  const dp = new Array(amount + 1).fill(Infinity);
  const pick = new Array(amount + 1).fill(-1);
  dp[0] = 0;
  for (let a = 1; a <= amount; a++) for (const c of denoms) if (c <= a && dp[a - c] + 1 < dp[a]) { dp[a] = dp[a - c] + 1; pick[a] = c; }
  const used = [];
  for (let a = amount; a > 0 && pick[a] > 0; a -= pick[a]) used.push(pick[a]);
  return { count: dp[amount], used };
}
console.log(minCoins(63, [1, 5, 10, 21, 25]), minCoins(7, [2, 4]));

function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}
const candidates = ['apple', 'apply', 'ample', 'maple', 'applet', 'paper'];
const query = 'appel';
console.log(candidates.map((c) => [c, editDistance(query, c)]).sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0])));

const lcs = memo((a, b) => {
  if (!a || !b) return '';
  if (a[0] === b[0]) return a[0] + lcs(a.slice(1), b.slice(1));
  const x = lcs(a.slice(1), b), y = lcs(a, b.slice(1));
  return x.length >= y.length ? x : y;
});
console.log(lcs('AGGTABQRS', 'GXTXAYBRQS'), lcs('ABCBDAB', 'BDCABA'));
const factorial = (n) => (n <= 1n ? 1n : n * factorial(n - 1n));
console.log(factorial(25n), 2n ** 64n - 1n, (2n ** 64n).toString(16), BigInt.asUintN(8, 257n), 7n / 2n, -7n % 3n);
