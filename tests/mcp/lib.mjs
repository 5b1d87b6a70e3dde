// Shared by the MCP tests: where things are, the check counter, the SDK's
// modules (from the pinned install of deps.sh), and the server's arguments.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

export const here = dirname(fileURLToPath(import.meta.url));
export const build = process.env.MCP_BUILD;
export const capsa = join(build, 'capsa');
export const nodeDir = process.env.MCP_NODE_DIR;
export const require = createRequire(join(nodeDir, 'package.json'));

// The servers the tests started and that still run: killed when this process
// ends by any path (an uncaught error of the SDK's client included), so that a
// failed run leaves no server behind.
const live = new Set();
export function tracked(child) {
  live.add(child);
  child.on('exit', () => live.delete(child));
  return child;
}
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export const sdk = {
  ...require('@modelcontextprotocol/sdk/client/index.js'),
  ...require('@modelcontextprotocol/sdk/client/stdio.js'),
  ...require('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ...require('@modelcontextprotocol/sdk/types.js'),
};

let passed = 0;
let failed = 0;

// check(cond, what, detail): counts one check; a failure says what was expected
// and what came (detail).
export function check(cond, what, detail) {
  if (cond) {
    passed++;
  } else {
    failed++;
    let shown = detail;
    if (typeof detail !== 'string') shown = JSON.stringify(detail);
    console.log(`FAIL ${what}${shown !== undefined ? `: got ${String(shown).slice(0, 2000)}` : ''}`);
  }
}

export function summary() {
  console.log(`${passed} passed, ${failed} failed`);
  return failed;
}

// The server's tools and policy (tools.json, policy.json) and a short time limit.
export function serverArgs(extra = []) {
  return ['mcp', '--tools', join(here, 'tools.json'), '--policy', join(here, 'policy.json'),
    '--timeout', '3', ...extra];
}

// A temporary directory, removed at exit.
const temps = [];
export function tempDir() {
  const d = mkdtempSync(join(tmpdir(), 'capsa-mcp-'));
  temps.push(d);
  return d;
}
process.on('exit', () => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });

// Runs an async test step; an exception is one failed check naming the step.
export async function step(what, fn) {
  const t0 = Date.now();
  try {
    await fn();
    if (process.env.MCP_TRACE) console.log(`${what}: ${Date.now() - t0} ms`);
  } catch (e) {
    check(false, `${what} threw`, e && e.stack ? e.stack : String(e));
  }
}

// The SDK's Client on transport, connected; close() closes it, then runs after().
export async function clientOn(transport, audit, after) {
  const client = new sdk.Client({ name: 'capsa-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    audit,
    close: async () => {
      await client.close();
      await after();
    },
  };
}

// A fresh audit file's path, and extra with 'AUDIT' replaced by it.
export function withAudit(extra) {
  const audit = join(tempDir(), 'audit.jsonl');
  return [audit, extra.map((a) => (a === 'AUDIT' ? audit : a))];
}
