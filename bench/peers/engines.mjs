// The peers capsa is compared with, behind one small interface: Node.js's vm module,
// quickjs-emscripten (QuickJS compiled to WebAssembly by Emscripten, run by V8) and
// isolated-vm (V8 isolates of their own, with their own heap limit, in Node.js).
// quickjs-emscripten and isolated-vm come from the pinned npm packages of
// bench/package.json, installed by bench/deps.sh into a directory given on the
// command line.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

// What a sandbox gets in capsa by default (src/instance.c): 256 MiB, of which
// QuickJS may use all but 3 MiB; the native reference uses the same limit.
const MEMORY_LIMIT = (256 - 3) * 1024 * 1024;

export const ENGINES = ['node_vm', 'quickjs_emscripten', 'isolated_vm'];

// Loads an engine and returns { newSandbox(opts) } where a sandbox has run(code, name),
// which evaluates a global script and returns nothing, read(expr), which returns
// the JSON text of an expression's value, and dispose(). Throws when the engine
// cannot be loaded (its package not installed). opts.intl names a file of JS that
// gives an engine without Intl one before anything runs (the guest's guest/intl.js,
// as native QuickJS gets it); engines with their own Intl ignore it.
export async function loadEngine(name, modulesDir) {
    if (name === 'node_vm')
        return nodeVm();
    if (name === 'quickjs_emscripten')
        return quickjsEmscripten(modulesDir);
    if (name === 'isolated_vm')
        return isolatedVm(modulesDir);
    throw new Error(`unknown engine ${name}`);
}

function nodeVm() {
    return {
        newSandbox() {
            const ctx = vm.createContext();
            return {
                run(code, filename) {
                    vm.runInContext(code, ctx, { filename });
                },
                read(expr) {
                    return vm.runInContext(`JSON.stringify(${expr})`, ctx);
                },
                // A context is garbage collected once unreachable: there is nothing
                // to free by hand, and the collector's time falls in later samples.
                dispose() {},
            };
        },
    };
}

function requireFrom(modulesDir, name) {
    if (!modulesDir)
        throw new Error('no node_modules directory given');
    return createRequire(path.join(path.resolve(modulesDir), 'bench.js'))(name);
}

async function quickjsEmscripten(modulesDir) {
    const { getQuickJS } = requireFrom(modulesDir, 'quickjs-emscripten');
    const QuickJS = await getQuickJS();
    return {
        newSandbox(opts = {}) {
            const runtime = QuickJS.newRuntime();
            runtime.setMemoryLimit(MEMORY_LIMIT);
            const ctx = runtime.newContext();
            const evaluate = (code, filename) => {
                const result = ctx.evalCode(code, filename);
                if (result.error) {
                    const err = ctx.dump(result.error);
                    result.error.dispose();
                    throw new Error(`${filename}: ${JSON.stringify(err)}`);
                }
                const jobs = runtime.executePendingJobs();
                if (jobs.error) {
                    const err = jobs.error.context.dump(jobs.error);
                    jobs.error.dispose();
                    result.value.dispose();
                    throw new Error(`${filename}: a job threw ${JSON.stringify(err)}`);
                }
                return result.value;
            };
            if (opts.intl)
                evaluate(readFileSync(opts.intl, 'utf8'), opts.intl).dispose();
            return {
                run(code, filename) {
                    evaluate(code, filename).dispose();
                },
                read(expr) {
                    const handle = evaluate(`JSON.stringify(${expr})`, '<check>');
                    const s = ctx.typeof(handle) === 'string' ? ctx.getString(handle) : undefined;
                    handle.dispose();
                    return s;
                },
                dispose() {
                    ctx.dispose();
                    runtime.dispose();
                },
            };
        },
    };
}

function isolatedVm(modulesDir) {
    const ivm = requireFrom(modulesDir, 'isolated-vm');
    return {
        newSandbox() {
            const isolate = new ivm.Isolate({ memoryLimit: MEMORY_LIMIT / (1024 * 1024) });
            const ctx = isolate.createContextSync();
            return {
                // A global script whose completion value is left in the isolate (an
                // object could not be copied out).
                run(code, filename) {
                    ctx.evalSync(code + '\n;undefined', { filename });
                },
                read(expr) {
                    return ctx.evalSync(`JSON.stringify(${expr})`);
                },
                dispose() {
                    ctx.release();
                    isolate.dispose();
                },
            };
        },
    };
}
