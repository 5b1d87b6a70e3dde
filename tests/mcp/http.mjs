// capsa mcp --http: servers on loopback at free ports (the kernel picks them:
// --http 127.0.0.1:0), the SDK's Streamable HTTP client, and the transport's own
// bad input: Origin, Host, tokens, sizes, sessions, headers.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { capsa, check, clientOn, sdk, serverArgs, step, tracked, withAudit } from './lib.mjs';

// Starts a server; resolves to { url, port, stop() } once it says where it is.
export function startHttp(extra = [], env = {}) {
  const child = tracked(spawn(capsa, serverArgs(['--http', '127.0.0.1:0', ...extra]),
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } }));
  let stderr = '';
  const exited = new Promise((r) => child.on('exit', (code, sig) => r({ code, sig })));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no address from the server: ${stderr}`)), 60000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stderr);
      if (m && t) {
        clearTimeout(t);
        resolve({
          url: m[1],
          port: Number(m[2]),
          get stderr() { return stderr; },
          async stop() {
            child.kill('SIGTERM');
            let timer;
            const r = await Promise.race([exited, new Promise((res) => { timer = setTimeout(() => res(null), 60000); })]);
            clearTimeout(timer);
            if (!r) child.kill('SIGKILL');
            check(r && r.code === 0, 'http: the server stops on SIGTERM with status 0', r);
            check(!/trap|Sanitizer|runtime error/.test(stderr), 'http: the server wrote no crash to stderr', stderr);
          },
        });
      }
    });
    exited.then((r) => { clearTimeout(t); reject(new Error(`the server exited (${JSON.stringify(r)}): ${stderr}`)); });
  });
}

// The SDK's client over Streamable HTTP (for sdkSuite).
export async function connectHttp(extra) {
  const [audit, args] = withAudit(extra);
  const srv = await startHttp(args);
  const transport = new sdk.StreamableHTTPClientTransport(new URL(srv.url));
  return clientOn(transport, audit, async () => {
    await srv.stop();
  });
}

const JSON_SSE = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

// One POST; resolves to { status, headers, body (parsed when JSON, else text) }.
async function post(url, msg, headers = {}) {
  const r = await fetch(url, { method: 'POST', body: typeof msg === 'string' ? msg : JSON.stringify(msg),
    headers: { 'Content-Type': 'application/json', Accept: JSON_SSE, ...headers } });
  const text = await r.text();
  let body = text;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, headers: r.headers, body };
}

async function openSession(url, headers = {}) {
  const r = await post(url, INIT, headers);
  const id = r.headers.get('mcp-session-id');
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': id, ...headers });
  return id;
}

function call(url, id, code, n = 2) {
  return post(url, { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'execute', arguments: { code } } },
    { 'Mcp-Session-Id': id });
}

// A raw request with a chosen Host header and a body sent in chunks (no length).
function rawRequest(port, { method = 'POST', path = '/mcp', headers = {}, chunks = [] }) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let data = '';
      res.on('data', (d) => { data += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on('error', (e) => resolve({ error: e.code || String(e) }));
    (async () => {
      for (const c of chunks) {
        if (!req.write(c)) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })();
  });
}

export async function httpSuite() {
  const srv = await startHttp(['--allow-origin', 'https://app.example', '--max-sessions', '4']);
  const { url, port } = srv;
  try {
    await step('http: Origin', async () => {
      const none = await post(url, INIT);
      check(none.status === 200 && none.headers.get('mcp-session-id'), 'no Origin (a non-browser client) is served', none.status);
      check(/^[0-9a-f]{32}$/.test(none.headers.get('mcp-session-id') || ''), 'the session id is 128 random bits in hex', none.headers.get('mcp-session-id'));
      const evil = await post(url, INIT, { Origin: 'http://evil.example' });
      check(evil.status === 403, 'a foreign Origin gets 403', evil.status);
      const tricky = await post(url, INIT, { Origin: 'http://127.0.0.1.evil.example' });
      check(tricky.status === 403, 'a name that starts like loopback gets 403', tricky.status);
      const nul = await post(url, INIT, { Origin: 'null' });
      check(nul.status === 403, 'Origin null gets 403', nul.status);
      const local = await post(url, INIT, { Origin: 'http://localhost:5173' });
      check(local.status === 200, 'a loopback Origin is served', local.status);
      const listed = await post(url, INIT, { Origin: 'https://app.example' });
      check(listed.status === 200, 'an Origin given with --allow-origin is served', listed.status);
      for (const r of [none, local, listed]) {
        const del = await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': r.headers.get('mcp-session-id') } });
        check(del.status === 204, 'DELETE ends a session', del.status);
      }
    });

    await step('http: Host (DNS rebinding)', async () => {
      const r = await rawRequest(port, { headers: { Host: 'evil.example:80', 'Content-Type': 'application/json', Accept: JSON_SSE },
        chunks: [JSON.stringify(INIT)] });
      check(r.status === 403, 'a Host that is not loopback gets 403', r);
    });

    await step('http: sizes', async () => {
      const big = 'x'.repeat(100 << 20);
      const r = await rawRequest(port, { headers: { 'Content-Type': 'application/json', Accept: JSON_SSE, 'Content-Length': String(big.length) },
        chunks: [big] });
      check(r.status === 413 || r.error === 'EPIPE' || r.error === 'ECONNRESET', 'a 100 MB body with its length is refused (413)', r.status || r.error);
      const chunks = [];
      for (let i = 0; i < 100; i++) chunks.push('x'.repeat(1 << 20));
      const c = await rawRequest(port, { headers: { 'Content-Type': 'application/json', Accept: JSON_SSE, 'Transfer-Encoding': 'chunked' }, chunks });
      check(c.status === 413, 'a 100 MB chunked body is refused (413)', c.status || c.error);
      const after = await post(url, INIT);
      check(after.status === 200, 'the server serves after them', after.status);
      await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': after.headers.get('mcp-session-id') } });
    });

    await step('http: headers', async () => {
      const a = await post(url, INIT, { Accept: 'application/json' });
      check(a.status === 406, 'a client that does not accept SSE gets 406', a.status);
      const t = await post(url, JSON.stringify(INIT), { 'Content-Type': 'text/plain' });
      check(t.status === 415, 'a body that is not application/json gets 415', t.status);
      const noid = await post(url, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
      check(noid.status === 400 && noid.body.error, 'a request without a session id gets 400', noid);
      const unknown = await post(url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'Mcp-Session-Id': '0123456789abcdef0123456789abcdef' });
      check(unknown.status === 404, 'an unknown session id gets 404', unknown.status);
      const id = await openSession(url);
      const v = await post(url, { jsonrpc: '2.0', id: 4, method: 'ping' }, { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '1999-01-01' });
      check(v.status === 400, 'an unsupported MCP-Protocol-Version gets 400', v);
      const old = await post(url, { jsonrpc: '2.0', id: 5, method: 'ping' }, { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-03-26' });
      check(old.status === 200, 'a supported one is served', old.status);
      const bad = await post(url, '{"jsonrpc":', { 'Mcp-Session-Id': id });
      check(bad.body && bad.body.error && bad.body.error.code === -32700, 'malformed JSON in a session is -32700', bad.body);
      const note = await post(url, { jsonrpc: '2.0', method: 'notifications/whatever' }, { 'Mcp-Session-Id': id });
      check(note.status === 202, 'a notification gets 202', note.status);
      const get = await fetch(url, { headers: { 'Mcp-Session-Id': id, Accept: 'text/event-stream' } });
      check(get.status === 200 && get.headers.get('content-type') === 'text/event-stream', 'GET opens the session\'s SSE stream', get.status);
      const get2 = await fetch(url, { headers: { 'Mcp-Session-Id': id, Accept: 'text/event-stream' } });
      check(get2.status === 409, 'a second GET stream gets 409', get2.status);
      const reading = get.text();
      const del = await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': id } });
      check(del.status === 204, 'DELETE ends the session', del.status);
      await reading;
      check(true, 'and its GET stream ends with it');
      const gone = await post(url, { jsonrpc: '2.0', id: 6, method: 'ping' }, { 'Mcp-Session-Id': id });
      check(gone.status === 404, 'a deleted session\'s id gets 404', gone.status);
    });

    await step('http: sessions share nothing', async () => {
      const a = await openSession(url);
      const b = await openSession(url);
      check(a !== b, 'two sessions have two ids', [a, b]);
      await call(url, a, 'var mine = "a"; fs.writeFileSync("a.txt", "secret of a")');
      const rb = await call(url, b, 'return [typeof mine, fs.existsSync("a.txt")]');
      check(JSON.stringify(rb.body.result.structuredContent.result) === '["undefined",false]',
        'session b sees neither a\'s globals nor its files', rb.body);
      const res = await post(url, { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'file:///workspace/a.txt' } }, { 'Mcp-Session-Id': b });
      check(res.body.error && res.body.error.code === -32002, 'nor can it read a\'s files as resources', res.body);
      const ra = await call(url, a, 'return mine + " " + fs.readFileSync("a.txt", "utf8")');
      check(ra.body.result.structuredContent.result === 'a secret of a', 'session a keeps its own', ra.body);
      const c = await openSession(url);
      const d = await openSession(url);
      const e = await post(url, INIT);
      check(e.status === 503, 'past --max-sessions a new session gets 503', e.status);
      for (const id of [a, b, c, d]) await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': id } });
      const f = await post(url, INIT);
      check(f.status === 200, 'after DELETEs there is room again', f.status);
      await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': f.headers.get('mcp-session-id') } });
    });

    await step('http: streamed answers', async () => {
      const id = await openSession(url);
      const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: JSON_SSE, 'Mcp-Session-Id': id },
        body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'execute', _meta: { progressToken: 't' },
          arguments: { code: 'return await tools.math.add({a: 1, b: 1})' } } }) });
      const text = await r.text();
      const events = text.split('\n\n').filter((e) => e.startsWith('event: message')).map((e) => JSON.parse(e.split('\ndata: ')[1]));
      check(r.headers.get('content-type') === 'text/event-stream', 'a call with a progress token is answered as SSE', r.headers.get('content-type'));
      check(events.length === 3 && events[0].method === 'notifications/progress' && events[2].id === 8 &&
        events[2].result.structuredContent.result === 2, 'progress events, then the answer, then the end', events);
      await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': id } });
    });
  } finally {
    await srv.stop();
  }

  await step('http: tokens', async () => {
    const token = 'a-token-of-some-length-1234';
    const t = await startHttp([], { CAPSA_MCP_TOKEN: token });
    try {
      const none = await post(t.url, INIT);
      check(none.status === 401 && /Bearer/.test(none.headers.get('www-authenticate') || ''), 'no token gets 401 with WWW-Authenticate', none.status);
      const wrong = await post(t.url, INIT, { Authorization: `Bearer ${token}x` });
      check(wrong.status === 401, 'a wrong token gets 401', wrong.status);
      const right = await post(t.url, INIT, { Authorization: `Bearer ${token}` });
      check(right.status === 200, 'the right token is served', right.status);
      await fetch(t.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': right.headers.get('mcp-session-id'), Authorization: `Bearer ${token}` } });
    } finally {
      await t.stop();
    }
    const refused = spawn(capsa, serverArgs(['--http', '0.0.0.0:0']), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CAPSA_MCP_TOKEN: '' } });
    let err = '';
    refused.stderr.on('data', (d) => { err += d; });
    const code = await new Promise((r) => refused.on('exit', (c) => r(c)));
    check(code === 2 && /bearer token is required/.test(err), 'binding beyond loopback without a token is refused', `${code} ${err}`);
  });

  await step('http: idle sessions expire', async () => {
    const t = await startHttp(['--session-idle', '1']);
    try {
      const id = await openSession(t.url);
      await new Promise((r) => setTimeout(r, 3500));
      const r = await post(t.url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { 'Mcp-Session-Id': id });
      check(r.status === 404, 'a session idle past --session-idle is gone (404)', r.status);
    } finally {
      await t.stop();
    }
  });
}
