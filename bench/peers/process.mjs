// Whole-process figures: the wall time of a process that starts, creates one
// sandbox, evaluates 1+1 and prints it, for capsa (`capsa run -e 'return 1+1'`) and
// for each peer (`node -e` with the vm module; bench/peers/once.mjs for
// quickjs-emscripten and isolated-vm); and the start of capsa's other ways in:
// `capsa mcp` answering initialize and one execute call over stdio before its
// input ends (capsa_mcp), and the Python package's `Sandbox().run()` in a new
// interpreter (python; PYTHONPATH and CAPSA_LIBRARY say which package and
// library), beside the interpreter printing 1+1 itself (python_bare). The
// commands take turns, so that a busy moment of the machine falls on all of them.
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

// Each: name, program, arguments, and optionally its standard input and how its
// output is checked (default: it printed 2).
const mcpInput = [
    { jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'execute', arguments: { code: 'return 1+1' } } },
].map((m) => `${JSON.stringify(m)}\n`).join('');
const mcpAnswered = (out) => out.split('\n').some((l) => {
    try { return JSON.parse(l).result.structuredContent.result === 2; } catch { return false; }
});
const commands = [
    ['capsa', capsa, ['run', '-e', 'return 1+1']],
    ['node_vm', process.execPath, ['-e', "console.log(require('vm').runInNewContext('1+1'))"]],
    ['capsa_mcp', capsa, ['mcp'], mcpInput, mcpAnswered],
];
if (process.env.PYTHONPATH && process.env.CAPSA_LIBRARY) {
    commands.push(['python', 'python3', ['-c', 'import capsa; print(capsa.Sandbox().run("return 1+1").value)']]);
    commands.push(['python_bare', 'python3', ['-c', 'print(1+1)']]);
}
if (modulesDir && existsSync(path.join(modulesDir, 'quickjs-emscripten')))
    commands.push(['quickjs_emscripten', process.execPath,
        [path.join(here, 'once.mjs'), 'quickjs_emscripten']]);
if (modulesDir && existsSync(path.join(modulesDir, 'isolated-vm', 'out', 'isolated_vm.node')))
    commands.push(['isolated_vm', process.execPath, [path.join(here, 'once.mjs'), 'isolated_vm']]);

const samples = new Map(commands.map(([name]) => [name, []]));
for (let i = -warmup; i < runs; i++) {
    for (const [name, file, args, input, ok = (out) => out.trim() === '2'] of commands) {
        const t0 = performance.now();
        const r = spawnSync(file, args, { encoding: 'utf8', input: input ?? '', stdio: ['pipe', 'pipe', 'pipe'] });
        const dt = performance.now() - t0;
        if (r.status !== 0 || !ok(r.stdout)) {
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
