// In-process figures of a peer, as capsa_bench measures capsa's:
//   node inproc.mjs ENGINE compute REPS WARMUP SCRIPT...   each script in one sandbox
//   node inproc.mjs ENGINE latency N                       new sandbox + 1+1 + dispose
// A latency cycle evaluates 1+1 and takes its value as JSON, as a capsa run does.
// ENGINE is node_vm, quickjs_emscripten or isolated_vm; BENCH_NODE_MODULES names the directory
// where the pinned npm packages are installed. Prints one line per figure,
// "name unit median min max p99 check", as the C runners do (see bench.sh).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadEngine } from './engines.mjs';
import { now, summary } from './stats.mjs';

function compute(engine, reps, warmup, scripts) {
    for (const file of scripts) {
        const code = readFileSync(file, 'utf8');
        const name = path.basename(file).replace(/\.js$/, '');
        const sb = engine.newSandbox({ intl: process.env.BENCH_INTL_JS });
        const t = [];
        for (let i = -warmup; i < reps; i++) {
            const t0 = now();
            sb.run(code, file);
            const dt = now() - t0;
            if (i >= 0)
                t.push(dt);
        }
        const check = sb.read('globalThis.benchResult') ?? '-';
        sb.dispose();
        console.log(`compute.${name} ms ${summary(t)} ${check}`);
    }
}

function latency(engine, n) {
    const warmup = Math.floor(n / 10) + 1;
    const t = [];
    for (let i = -warmup; i < n; i++) {
        const t0 = now();
        const sb = engine.newSandbox();
        const v = sb.read('1+1');
        sb.dispose();
        const dt = (now() - t0) * 1e3;
        if (v !== '2')
            throw new Error(`1+1 gave ${v}`);
        if (i >= 0)
            t.push(dt);
    }
    console.log(`latency.cycle us ${summary(t)} -`);
}

const [engineName, mode, ...args] = process.argv.slice(2);
const count = (s, fallback) => (Number(s) > 0 ? Math.floor(Number(s)) : fallback);
const engine = await loadEngine(engineName, process.env.BENCH_NODE_MODULES);
if (mode === 'compute' && args.length >= 3)
    compute(engine, count(args[0], 7), Number(args[1]) || 0, args.slice(2));
else if (mode === 'latency' && args.length >= 1)
    latency(engine, count(args[0], 1000));
else {
    console.error('usage: node inproc.mjs ENGINE compute REPS WARMUP SCRIPT...\n' +
        '       node inproc.mjs ENGINE latency N');
    process.exit(2);
}
