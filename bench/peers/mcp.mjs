// The MCP benchmark: the same SDK client (@modelcontextprotocol/sdk) against
// capsa mcp and against the reference server (mcp_ref.mjs), in the same run:
// the round trip of a tools/call of `return 1` over stdio and over Streamable
// HTTP (wall time, client included, after a warm-up), and 100 HTTP sessions held
// at once, each after one call, with the server's memory per session (PSS and
// RSS of /proc/PID/smaps_rollup, before and after). Prints rows
// "engine name unit median min max p99 check".
//   node mcp.mjs CAPSA CALLS SESSIONS       (MCP_NODE_DIR: the install)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(process.env.MCP_NODE_DIR, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const [capsa, callsArg, sessionsArg] = process.argv.slice(2);
const CALLS = Number(callsArg || 1000);
const SESSIONS = Number(sessionsArg || 100);
const WARMUP = 50;

const servers = {
  capsa: { stdio: [capsa, ['mcp']], http: [capsa, ['mcp', '--http', '127.0.0.1:0', '--max-sessions', String(SESSIONS + 10)]] },
  reference: { stdio: [process.execPath, [join(here, 'mcp_ref.mjs'), 'stdio']],
    http: [process.execPath, [join(here, 'mcp_ref.mjs'), 'http', '0']] },
};

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

function row(engine, name, unit, xs, check = 1) {
  const s = [...xs].sort((a, b) => a - b);
  console.log(`${engine} ${name} ${unit} ${pct(s, 50)} ${s[0]} ${s[s.length - 1]} ${pct(s, 99)} ${check}`);
}

async function roundTrips(client) {
  const times = [];
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const t0 = process.hrtime.bigint();
    const r = await client.callTool({ name: 'execute', arguments: { code: 'return 1' } });
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    if (r.structuredContent.result !== 1) throw new Error(`wrong result ${JSON.stringify(r)}`);
    if (i >= WARMUP) times.push(us);
  }
  return times;
}

function startHttp(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: process.env });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      const m = /serving (http:\/\/\S+\/mcp)/.exec(err);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (c) => reject(new Error(`server exited ${c}: ${err}`)));
  });
}

function memory(pid) {
  const t = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(t)[1]);
  return { pss: kb('Pss'), rss: kb('Rss') };
}

for (const engine of ['capsa', 'reference']) {
  {
    const [cmd, args] = servers[engine].stdio;
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StdioClientTransport({ command: cmd, args, env: process.env }));
    row(engine, 'mcp.stdio.call', 'us', await roundTrips(client));
    await client.close();
  }
  const { child, url } = await startHttp(...servers[engine].http);
  try {
    const client = new Client({ name: 'bench', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    row(engine, 'mcp.http.call', 'us', await roundTrips(client));
    const before = memory(child.pid);
    const held = [];
    for (let i = 0; i < SESSIONS; i++) {
      const c = new Client({ name: 'bench', version: '1' });
      const t = new StreamableHTTPClientTransport(new URL(url));
      await c.connect(t);
      const r = await c.callTool({ name: 'execute', arguments: { code: `globalThis.n = ${i}; return 1` } });
      if (r.structuredContent.result !== 1) throw new Error('a held session failed');
      held.push([c, t]);
    }
    const after = memory(child.pid);
    let alive = 0;
    for (const [c] of held) {
      const r = await c.callTool({ name: 'execute', arguments: { code: 'return n' } });
      alive += typeof r.structuredContent.result === 'number' ? 1 : 0;
    }
    row(engine, 'mcp.http.sessions_held', 'n', [alive], alive === SESSIONS ? 1 : 0);
    row(engine, 'mcp.http.session_pss', 'KiB', [(after.pss - before.pss) / SESSIONS]);
    row(engine, 'mcp.http.session_rss', 'KiB', [(after.rss - before.rss) / SESSIONS]);
    for (const [c, t] of held) {
      await t.terminateSession().catch(() => {});
      await c.close();
    }
    await transport.terminateSession().catch(() => {});
    await client.close();
  } finally {
    child.kill('SIGTERM');
  }
}
