// What the peer drivers share with the C runners (bench/bench.h): the clock of the
// in-process figures and the order statistics they print.
import { performance } from 'node:perf_hooks';

// BENCH_CLOCK: "cpu" (the default) is the CPU time of the process, user and system,
// all its threads included (V8 compiles and collects garbage on threads of its own);
// "wall" is the monotonic clock.
const clock = process.env.BENCH_CLOCK || 'cpu';
if (clock !== 'cpu' && clock !== 'wall')
    throw new Error(`BENCH_CLOCK is cpu or wall, not ${clock}`);

// Milliseconds on that clock.
export function now() {
    if (clock === 'wall')
        return performance.now();
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e3;
}

// Median, min, max and nearest-rank p99, with three decimals.
export function summary(samples) {
    const s = [...samples].sort((a, b) => a - b);
    const n = s.length;
    const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    const p99 = s[Math.min(n, Math.max(1, Math.ceil(0.99 * n))) - 1];
    return [median, s[0], s[n - 1], p99].map((v) => v.toFixed(3)).join(' ');
}
