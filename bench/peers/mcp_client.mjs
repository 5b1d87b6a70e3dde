// The MCP client's bench row: the overhead capsa adds to a call of an upstream
// MCP tool. The same call, server-everything's echo over stdio (pinned by
// tests/mcp_client), made in the same run (1) by a script in a capsa sandbox,
// `await tools.everything.echo({...})` through the policy, the audit and capsa's
// MCP client, timed inside the script with performance.now(), and (2) directly
// by the SDK's Client in Node.js, timed around client.callTool. Each after a
// warm-up; prints rows "engine name unit median min max p99 check" as mcp.mjs.
//   node mcp_client.mjs CAPSA CALLS       (MCP_CLIENT_NODE_DIR: the install)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = process.env.MCP_CLIENT_NODE_DIR;
const require = createRequire(join(dir, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const everything = join(dir, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

const [capsa, callsArg] = process.argv.slice(2);
const CALLS = Number(callsArg || 1000);
const WARMUP = 50;

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

function row(engine, name, unit, xs, check = 1) {
  const s = [...xs].sort((a, b) => a - b);
  console.log(`${engine} ${name} ${unit} ${pct(s, 50)} ${s[0]} ${s[s.length - 1]} ${pct(s, 99)} ${check}`);
}

// (1) capsa: the script times its own calls.
const tmp = mkdtempSync(join(tmpdir(), 'capsa-bench-mcpc-'));
try {
  const cfg = join(tmp, 'mcp.json');
  writeFileSync(cfg, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }));
  const code = `const times = [];
    for (let i = 0; i < ${WARMUP + CALLS}; i++) {
      const t0 = performance.now();
      const r = await tools.everything.echo({ message: 'x' });
      const us = (performance.now() - t0) * 1000;
      if (r !== 'Echo: x') throw new Error('wrong result ' + JSON.stringify(r));
      if (i >= ${WARMUP}) times.push(us);
    }
    return times`;
  const r = spawnSync(capsa, ['run', '--mcp-config', cfg, '--allow', 'everything.echo', '--timeout', '600', '-e', code],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`capsa run failed (${r.status}): ${r.stderr}`);
  row('capsa', 'mcp.client.call', 'us', JSON.parse(r.stdout));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// (2) the reference: the SDK's client calls the same server directly.
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }));
const times = [];
for (let i = 0; i < WARMUP + CALLS; i++) {
  const t0 = process.hrtime.bigint();
  const r = await client.callTool({ name: 'echo', arguments: { message: 'x' } });
  const us = Number(process.hrtime.bigint() - t0) / 1000;
  if (r.content[0].text !== 'Echo: x') throw new Error(`wrong result ${JSON.stringify(r)}`);
  if (i >= WARMUP) times.push(us);
}
await client.close();
row('reference', 'mcp.client.call', 'us', times);
