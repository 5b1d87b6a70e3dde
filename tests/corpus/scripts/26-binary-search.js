// Binary search helpers over sorted records: lower/upper bounds, ranges, insertion.
const lowerBound = (arr, target, key = (x) => x) => {
  let lo = 0, hi = arr.length;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (key(arr[mid]) < target) lo = mid + 1; else hi = mid; }
  return lo;
};
const upperBound = (arr, target, key = (x) => x) => {
  let lo = 0, hi = arr.length;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (key(arr[mid]) <= target) lo = mid + 1; else hi = mid; }
  return lo;
};
const nums = [1, 3, 3, 3, 7, 9, 12, 12, 20];
for (const t of [0, 3, 5, 12, 20, 25]) {
  const lo = lowerBound(nums, t), hi = upperBound(nums, t);
  console.log(`target ${String(t).padStart(2)}: lower=${lo} upper=${hi} count=${hi - lo} found=${nums[lo] === t}`);
}
const events = [
  { t: '2024-01-01T00:00:00Z', v: 'a' }, { t: '2024-01-05T12:00:00Z', v: 'b' },
  { t: '2024-02-10T08:00:00Z', v: 'c' }, { t: '2024-02-11T09:30:00Z', v: 'd' },
  { t: '2024-03-01T00:00:00Z', v: 'e' },
].map((e) => ({ ...e, ms: Date.parse(e.t) }));
const inRange = (from, to) => events.slice(lowerBound(events, Date.parse(from), (e) => e.ms), upperBound(events, Date.parse(to), (e) => e.ms));
console.log(inRange('2024-01-05T00:00:00Z', '2024-02-10T08:00:00Z').map((e) => e.v));
console.log(inRange('2025-01-01', '2025-12-31'));

const sorted = [];
for (const x of [5, 1, 4, 1, 5, 9, 2, 6, 5, 3]) sorted.splice(upperBound(sorted, x), 0, x);
console.log(sorted);
const sqrtInt = (n) => { let lo = 0n, hi = n; while (lo < hi) { const mid = (lo + hi + 1n) / 2n; if (mid * mid <= n) lo = mid; else hi = mid - 1n; } return lo; };
console.log(sqrtInt(10n ** 30n + 12345n), sqrtInt(99n));
const bisect = (f, a, b, tol = 1e-12) => { let iters = 0; while (b - a > tol) { const m = (a + b) / 2; if (Math.sign(f(m)) === Math.sign(f(a))) a = m; else b = m; iters++; } return [(a + b) / 2, iters]; };
const [root, iters] = bisect((x) => x ** 3 - 2 * x - 5, 2, 3);
console.log(root.toFixed(10), iters);
const firstBad = (n, isBad) => { let lo = 1, hi = n, calls = 0; while (lo < hi) { const m = lo + Math.floor((hi - lo) / 2); calls++; if (isBad(m)) hi = m; else lo = m + 1; } return { version: lo, calls }; };
console.log(firstBad(1000, (v) => v >= 737));
console.log([10, 20, 30].findLastIndex((x) => x < 25), [10, 20, 30].findLast((x) => x > 100), nums.indexOf(12), nums.lastIndexOf(3), nums.includes(NaN), [NaN].includes(NaN), [NaN].indexOf(NaN));
