// Whole-process figures: the wall time of a process that starts, creates one
// sandbox, evaluates 1+1 and prints it, for capsa (`capsa run -e 'return 1+1'`) and
// for each peer (`node -e` with the vm module; bench/peers/once.mjs for
// quickjs-emscripten and isolated-vm). The commands take turns, so that a busy moment of the
// machine falls on all of them.
//   node process.mjs RUNS CAPSA    (BENCH_NODE_MODULES: where the npm packages are)
// Prints "ENGINE process ms median min max p99 check" per command; a command that
// cannot run (its package not installed) is left out.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { summary } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [runsArg, capsa] = process.argv.slice(2);
const modulesDir = process.env.BENCH_NODE_MODULES;
const runs = Number(runsArg) > 0 ? Math.floor(Number(runsArg)) : 20;
const warmup = 2;

const commands = [
    ['capsa', capsa, ['run', '-e', 'return 1+1']],
    ['node_vm', process.execPath, ['-e', "console.log(require('vm').runInNewContext('1+1'))"]],
];
if (modulesDir && existsSync(path.join(modulesDir, 'quickjs-emscripten')))
    commands.push(['quickjs_emscripten', process.execPath,
        [path.join(here, 'once.mjs'), 'quickjs_emscripten']]);
if (modulesDir && existsSync(path.join(modulesDir, 'isolated-vm', 'out', 'isolated_vm.node')))
    commands.push(['isolated_vm', process.execPath, [path.join(here, 'once.mjs'), 'isolated_vm']]);

const samples = new Map(commands.map(([name]) => [name, []]));
for (let i = -warmup; i < runs; i++) {
    for (const [name, file, args] of commands) {
        const t0 = performance.now();
        const r = spawnSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        const dt = performance.now() - t0;
        if (r.status !== 0 || r.stdout.trim() !== '2') {
            console.error(`process.mjs: ${name}: exit ${r.status}, printed ` +
                `${JSON.stringify(r.stdout)} ${r.error ?? r.stderr}`);
            process.exit(1);
        }
        if (i >= 0)
            samples.get(name).push(dt);
    }
}
for (const [name, t] of samples)
    console.log(`${name} process ms ${summary(t)} 2`);
