// A hostile MCP server for the MCP client's tests, on stdio or Streamable HTTP,
// written by hand (no SDK): it lists its tools a few per page, and its tools
// misbehave on request (malformed, huge, slow, chatty, hanging, crashing, asking
// the client things). Every message it gets and everything it does is appended
// to the file given by --log as JSON lines, so the tests can see what reached it.
// With --http it serves POST/GET/DELETE /mcp on 127.0.0.1 at a free port (printed
// as "listening on PORT"), answering each request as an SSE stream of what the
// call sends (--json: one JSON body instead), and keeps the headers it got.
//   node fake.mjs --log FILE [--mute] [--bad-version] [--exit] [--list-error]
//                 [--grandchild] [--http [--json]]
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync, readdirSync, readlinkSync } from 'node:fs';
import { spawn } from 'node:child_process';
import http from 'node:http';

const argv = process.argv.slice(2);
const opt = (name) => argv.includes(name);
const logFile = argv.includes('--log') ? argv[argv.indexOf('--log') + 1] : null;
function log(event) {
  if (logFile) appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...event })}\n`);
}

let grandchild = null;
if (opt('--grandchild')) {
  grandchild = spawn('sleep', ['1000'], { stdio: 'ignore' });
  log({ event: 'grandchild', child: grandchild.pid });
}
log({ event: 'start' });
process.stderr.write('fake server ready\n');
if (opt('--exit')) process.exit(7);

// Where a message goes: stdout, or over HTTP the response of the POST being
// handled (its SSE stream), else the GET stream if one is open.
const current = new AsyncLocalStorage();
let getStream = null;
const sseEvent = (res, text) => res.write(`event: message\ndata: ${text}\n\n`);
function sendText(text) {
  if (!opt('--http')) { process.stdout.write(`${text}\n`); return; }
  const res = current.getStore();
  if (res && !res.writableEnded) {
    if (opt('--json')) { if (/"result"|"error"/.test(text) && !res.headersSent) { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(text); } }
    else {
      if (!res.headersSent) res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      sseEvent(res, text);
    }
  } else if (getStream) {
    sseEvent(getStream, text);
  }
}
const send = (msg) => sendText(JSON.stringify(msg));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

const obj = (props, required = []) => ({ type: 'object', properties: props, required });
const tools = [
  { name: 'echo', description: 'Gives back its arguments as JSON text.', inputSchema: obj({ text: { type: 'string' } }) },
  { name: 'fail', description: 'Fails (isError).', inputSchema: obj({}) },
  { name: 'rpc_error', description: 'Answers a JSON-RPC error.', inputSchema: obj({}) },
  { name: 'slow', description: 'Answers after ms milliseconds.', inputSchema: obj({ ms: { type: 'number' } }, ['ms']) },
  { name: 'max_inflight', description: 'The most calls it held at once.', inputSchema: obj({}) },
  { name: 'hang', description: 'Never answers.', inputSchema: obj({}) },
  { name: 'cancelled', description: 'The request ids the client cancelled.', inputSchema: obj({}) },
  { name: 'crash', description: 'Exits without answering.', inputSchema: obj({}) },
  { name: 'pid', description: 'Its process id.', inputSchema: obj({}) },
  { name: 'env', description: 'The names in its environment.', inputSchema: obj({}) },
  { name: 'fds', description: 'What its open descriptors are.', inputSchema: obj({}) },
  { name: 'huge', description: 'A text of mb MiB.', inputSchema: obj({ mb: { type: 'number' } }, ['mb']) },
  { name: 'chatty', description: 'n log notifications, then the answer.', inputSchema: obj({ n: { type: 'number' } }, ['n']) },
  { name: 'garbage', description: 'Malformed lines and wrong ids, then the answer.', inputSchema: obj({}) },
  { name: 'ask', description: 'Asks the client for sampling, elicitation, roots and a ping.', inputSchema: obj({}) },
  { name: 'add_tool', description: 'Adds a tool and says its list changed.', inputSchema: obj({ name: { type: 'string' } }, ['name']) },
  { name: 'calls', description: 'The tools called so far.', inputSchema: obj({}) },
  { name: 'structured', description: 'Structured content.', inputSchema: obj({}),
    outputSchema: obj({ n: { type: 'number' }, tag: { type: 'string' } }, ['n']) },
  { name: 'image', description: 'Text and an image.', inputSchema: obj({}) },
  { name: 'bigint', description: 'A number beyond 64 bits.', inputSchema: obj({}) },
  { name: 'not_object', description: 'A result that is not an object.', inputSchema: obj({}) },
  { name: 'headers', description: 'The HTTP headers of the last request (--http).', inputSchema: obj({}) },
  { name: 'http500', description: 'Answers HTTP 500 (--http).', inputSchema: obj({}) },
  { name: 'drop_session', description: 'Forgets its sessions (--http).', inputSchema: obj({}) },
  // Names capsa must make identifiers of, and make unique.
  { name: 'get-sum', inputSchema: obj({}) },
  { name: '1st', inputSchema: obj({}) },
  { name: 'a-b', inputSchema: obj({}) },
  { name: 'a_b', inputSchema: obj({}) },
  { name: 'x y.z', inputSchema: obj({}) },
  { name: 'n'.repeat(200), inputSchema: obj({}) },
  { name: 'no_schema' },
  // A schema capsa refuses for a tool's arguments: the tool is left out.
  { name: 'bad_schema', inputSchema: { type: 'string' } },
];
const PAGE = 3;

let inflight = 0;
let maxInflight = 0;
const cancelled = [];
const called = [];
const waiting = new Map(); // our requests to the client: id -> resolve

async function callTool(id, name, args) {
  called.push(name);
  switch (name) {
    case 'fail': return { ...text('it failed on purpose'), isError: true };
    case 'rpc_error': return { error: { code: -32000, message: 'no way' } };
    case 'slow':
      inflight++;
      maxInflight = Math.max(maxInflight, inflight);
      await new Promise((r) => setTimeout(r, args.ms));
      inflight--;
      return text(JSON.stringify({ slept: args.ms }));
    case 'max_inflight': { const m = maxInflight; maxInflight = 0; return text(String(m)); }
    case 'hang': return null;
    case 'cancelled': return text(JSON.stringify(cancelled));
    case 'crash': process.exit(3); break;
    case 'pid': return text(JSON.stringify({ pid: process.pid, grandchild: grandchild && grandchild.pid }));
    case 'env': return text(JSON.stringify(Object.keys(process.env).sort()));
    case 'fds': {
      const links = [];
      for (const fd of readdirSync('/proc/self/fd')) {
        try { links.push(readlinkSync(`/proc/self/fd/${fd}`)); } catch { /* gone meanwhile */ }
      }
      return text(JSON.stringify(links));
    }
    case 'huge': return text('x'.repeat(args.mb * 1024 * 1024));
    case 'chatty':
      for (let i = 0; i < args.n; i++)
        send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `chat ${i}` } });
      return text('"done talking"');
    case 'garbage':
      sendText('this is not JSON');
      sendText('{"jsonrpc":"2.0","id":');
      sendText('[1,2,3]');
      sendText('{"jsonrpc":"1.0","id":1,"result":{}}');
      send({ jsonrpc: '2.0', id: id + 100000, result: text('wrong id') });
      send({ jsonrpc: '2.0', id: String(id), result: text('a string id, not the request\'s integer') });
      send({ jsonrpc: '2.0', id: null, error: { code: -1, message: 'null id' } });
      sendText(`${JSON.stringify({ jsonrpc: '2.0', id, result: text('first') })}`.replace(/}$/, ',"result":1}'));
      return text('"survived"');
    case 'ask': {
      const asks = [['sampling/createMessage', { messages: [], maxTokens: 1 }],
        ['elicitation/create', { message: 'name?', requestedSchema: { type: 'object', properties: {} } }],
        ['roots/list', {}], ['ping', {}]];
      const answers = await Promise.all(asks.map(([method, params], i) => new Promise((resolve) => {
        const rid = `ask-${id}-${i}`;
        waiting.set(rid, resolve);
        send({ jsonrpc: '2.0', id: rid, method, params });
      })));
      return text(JSON.stringify(answers.map((a, i) => ({ method: asks[i][0], error: a.error ? a.error.code : null, result: a.result }))));
    }
    case 'add_tool':
      tools.push({ name: args.name, description: 'Added later.', inputSchema: obj({}) });
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      return text('"added"');
    case 'calls': return text(JSON.stringify(called));
    case 'headers': return text(JSON.stringify(lastHeaders));
    case 'http500': return { status: 500 };
    case 'drop_session': sessions.clear(); return text('"dropped"');
    case 'bigint': return { ...text('big'), structuredContent: { n: 2 ** 64, small: 1 } };
    case 'structured': return { ...text('{"n": 1}'), structuredContent: { n: 1, tag: 'structured' } };
    case 'image': return { content: [{ type: 'text', text: 'a picture:' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] };
    case 'not_object': return { rawResult: 42 };
    default:
      if (!tools.some((t) => t.name === name)) return { error: { code: -32602, message: `unknown tool ${name}` } };
      return text(JSON.stringify({ tool: name, args }));
  }
}

async function handle(msg) {
  if (msg.method === undefined) { // an answer to one of our requests
    const resolve = waiting.get(msg.id);
    waiting.delete(msg.id);
    log({ event: 'answer', id: msg.id, error: msg.error ? msg.error.code : null });
    if (resolve) resolve(msg);
    return;
  }
  log({ event: 'message', method: msg.method, id: msg.id, name: msg.params && msg.params.name, params: msg.method === 'notifications/cancelled' ? msg.params : undefined });
  if (msg.method === 'notifications/cancelled') { cancelled.push(msg.params.requestId); return; }
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') {
    if (opt('--mute')) return;
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: opt('--bad-version') ? '1999-01-01' : msg.params.protocolVersion,
      capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'fake', version: '0.0.1' } } });
    return;
  }
  if (msg.method === 'tools/list') {
    if (opt('--list-error')) { send({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: 'no list today' } }); return; }
    const start = msg.params && msg.params.cursor ? Number(msg.params.cursor) : 0;
    const page = tools.slice(start, start + PAGE);
    const result = { tools: page };
    if (start + PAGE < tools.length) result.nextCursor = String(start + PAGE);
    send({ jsonrpc: '2.0', id: msg.id, result });
    return;
  }
  if (msg.method === 'tools/call') {
    const r = await callTool(msg.id, msg.params.name, msg.params.arguments || {});
    if (r === null) return;
    if (r.status) { const res = current.getStore(); if (res) { res.writeHead(r.status); res.end('the server broke'); } return; }
    if (r.error) send({ jsonrpc: '2.0', id: msg.id, error: r.error });
    else if (r.rawResult !== undefined) send({ jsonrpc: '2.0', id: msg.id, result: r.rawResult });
    else send({ jsonrpc: '2.0', id: msg.id, result: r });
    return;
  }
  if (msg.method === 'ping') { send({ jsonrpc: '2.0', id: msg.id, result: {} }); return; }
  send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'unknown method' } });
}

let lastHeaders = {};
const sessions = new Set();
if (opt('--http')) {
  let n = 0;
  const server = http.createServer((req, res) => {
    lastHeaders = req.headers;
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'DELETE') { log({ event: 'delete', session: sid }); sessions.delete(sid); res.writeHead(200); res.end(); return; }
    if (req.method === 'GET') {
      if (!sessions.has(sid)) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      getStream = res;
      req.on('close', () => { if (getStream === res) getStream = null; });
      return;
    }
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      let msg;
      try { msg = JSON.parse(body); } catch { res.writeHead(400); res.end('bad JSON'); return; }
      if (msg.method === 'initialize') {
        const id = `s${++n}`;
        sessions.add(id);
        res.setHeader('Mcp-Session-Id', id);
      } else if (!sessions.has(sid)) {
        log({ event: 'unknown_session', session: sid });
        res.writeHead(404); res.end(); return;
      }
      if (msg.id === undefined || msg.method === undefined) { handle(msg); res.writeHead(202); res.end(); return; }
      current.run(res, async () => {
        await handle(msg);
        if (!res.writableEnded && !res.headersSent) res.writeHead(200);
        if (!res.writableEnded && msg.params && msg.params.name !== 'hang') res.end();
      });
    });
  });
  server.listen(0, '127.0.0.1', () => { process.stderr.write(`listening on ${server.address().port}\n`); });
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (!line.trim()) continue;
    let msg;
    try { msg = JSON.parse(line); } catch { log({ event: 'bad_line', line: line.slice(0, 200) }); continue; }
    handle(msg);
  }
});
process.stdin.on('end', () => { log({ event: 'stdin_end' }); if (!opt('--http')) process.exit(0); });
