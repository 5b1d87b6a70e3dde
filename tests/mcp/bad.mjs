// Bad input on the raw stdio protocol: none of it may crash or wedge the server,
// each gets the JSON-RPC error it deserves, and the server answers afterwards.
import { spawn } from 'node:child_process';
import { capsa, check, serverArgs, step, tracked } from './lib.mjs';

const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

// A server process spoken to line by line: send(text), and next(pred) waits
// (at most a minute: a wedged server fails instead of hanging) for the first
// message received that pred accepts.
export function rawServer(extra = []) {
  const child = tracked(spawn(capsa, serverArgs(extra), { stdio: ['pipe', 'pipe', 'pipe'] }));
  const got = [];
  let waiters = [];
  let buf = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let msg;
      try { msg = JSON.parse(line); } catch { msg = { unparsable: line }; }
      got.push(msg);
      waiters = waiters.filter((w) => !w());
    }
  });
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((r) => child.on('exit', (code, sig) => r({ code, sig })));
  return {
    got,
    get stderr() { return stderr; },
    send(text) {
      if (Buffer.isBuffer(text)) child.stdin.write(Buffer.concat([text, Buffer.from('\n')]));
      else child.stdin.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    next(pred, ms = 60000) {
      return new Promise((resolve) => {
        const t = setTimeout(() => resolve(null), ms);
        const w = () => {
          const i = got.findIndex(pred);
          if (i < 0) return false;
          clearTimeout(t);
          resolve(got.splice(i, 1)[0]);
          return true;
        };
        if (!w()) waiters.push(w);
      });
    },
    async end() {
      child.stdin.end();
      let timer;
      const r = await Promise.race([exited, new Promise((res) => { timer = setTimeout(() => res(null), 60000); })]);
      clearTimeout(timer);
      if (!r) child.kill('SIGKILL');
      return r;
    },
  };
}

const byId = (id) => (m) => m.id === id;

export async function badInputSuite() {
  const s = rawServer();
  try {
    await step('bad input before initialize', async () => {
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
      const r = await s.next(byId(1));
      check(r && r.error && r.error.code === -32600 && /not initialized/.test(r.error.message),
        'a call before initialize is refused (-32600)', r);
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
      const p = await s.next(byId(2));
      check(p && p.result && Object.keys(p.result).length === 0, 'ping is answered before initialize', p);
      s.send(JSON.stringify({ ...INIT, params: { protocolVersion: 5 } }));
      const bad = await s.next(byId('init'));
      check(bad && bad.error && bad.error.code === -32602, 'initialize with a number as version is -32602', bad);
      s.send(JSON.stringify({ ...INIT, params: { ...INIT.params, protocolVersion: '2025-03-26' } }));
      const ok = await s.next(byId('init'));
      check(ok && ok.result && ok.result.protocolVersion === '2025-03-26', 'a client asking for 2025-03-26 gets it', ok);
      check(ok && ok.result && ok.result.serverInfo.title === undefined, '2025-03-26 has no serverInfo.title', ok);
      s.send(JSON.stringify(INIT));
      const again = await s.next(byId('init'));
      check(again && again.error && again.error.code === -32600, 'a second initialize is refused', again);
      s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    });

    await step('malformed messages', async () => {
      const cases = [
        ['{"jsonrpc": "2.0", "id": 3, "method": "ping"', -32700, null, 'truncated JSON'],
        ['not json at all', -32700, null, 'garbage'],
        ['{"jsonrpc":"2.0","id":4,"id":5,"method":"ping"}', -32700, null, 'a duplicate key'],
        ['{"jsonrpc":"2.0","id":6,"method":"ping","x":"\\u0000"}', -32700, null, 'a NUL in a string'],
        [Buffer.from('{"jsonrpc":"2.0","id":7,"method":"p\xff"}', 'latin1'), -32700, null, 'invalid UTF-8'],
        ['[{"jsonrpc":"2.0","id":8,"method":"ping"}]', -32600, null, 'a batch'],
        ['"a string"', -32600, null, 'a string as message'],
        ['{"jsonrpc":"1.0","id":9,"method":"ping"}', -32600, 9, 'jsonrpc 1.0'],
        ['{"id":10,"method":"ping"}', -32600, 10, 'no jsonrpc member'],
        ['{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, null, 'a null id'],
        ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, null, 'a fractional id'],
        ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, null, 'an object id'],
        ['{"jsonrpc":"2.0","id":11,"method":7}', -32600, 11, 'a number as method'],
        ['{"jsonrpc":"2.0","id":12}', -32600, 12, 'neither method nor result'],
        ['{"jsonrpc":"2.0","id":13,"method":"ping","params":"x"}', -32600, 13, 'a string as params'],
        ['{"jsonrpc":"2.0","id":14,"method":"no/such"}', -32601, 14, 'an unknown method'],
        ['{"jsonrpc":"2.0","id":15,"method":"prompts/list"}', -32601, 15, 'a capability not advertised'],
        ['{"jsonrpc":"2.0","id":16,"method":"tools/call","params":[1,2]}', -32602, 16, 'params as an array'],
        ['{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":5}}', -32602, 17, 'a number as tool name'],
        ['{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"execute","arguments":"x"}}', -32602, 18, 'arguments as a string'],
        ['{"jsonrpc":"2.0","id":19,"method":"resources/read","params":{"uri":7}}', -32602, 19, 'a number as uri'],
        ['{"jsonrpc":"2.0","id":20,"method":"logging/setLevel","params":{"level":"loud"}}', -32602, 20, 'an unknown log level'],
        ['{"jsonrpc":"2.0","id":21,"method":"resources/list","params":{"cursor":"zz"}}', -32602, 21, 'a bad cursor'],
      ];
      for (const [line, code, id, what] of cases) {
        s.send(line);
        const r = await s.next((m) => m.error && (m.id === id || (id === null && m.id === null)));
        check(r && r.error.code === code, `${what}: error ${code} with id ${id}`, r);
      }
      s.send('{"jsonrpc":"2.0","id":22,"result":{}}');
      s.send('{"jsonrpc":"2.0","method":"notifications/unknown"}');
      s.send('   ');
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 23, method: 'tools/call',
        params: { name: 'execute', arguments: { code: 7 } } }));
      const r = await s.next(byId(23));
      check(r && r.result && r.result.isError === true && /code must be a string/.test(r.result.content[0].text),
        'code of the wrong type is an error result the model can read', r);
      check(s.got.length === 0, 'responses, unknown notifications and blank lines get no answer', s.got);
    });

    await step('a reused request id', async () => {
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'execute', arguments: { code: 'for (;;) {}' } } }));
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 'dup', method: 'ping' }));
      const first = await s.next(byId('dup'));
      check(first && first.error && first.error.code === -32600 && /already in use/.test(first.error.message),
        'an id still pending is refused', first);
      const second = await s.next(byId('dup'));
      check(second && second.result && second.result.structuredContent.status === 'timeout',
        'the first request with it is answered in the end', second);
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 'dup', method: 'ping' }));
      const third = await s.next(byId('dup'));
      check(third && third.result, 'once answered, the id may come again', third);
    });

    await step('a 100 MB message', async () => {
      const big = `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"execute","arguments":{"code":"${'x'.repeat(100 << 20)}"}}}`;
      s.send(big);
      const r = await s.next((m) => m.error && m.error.code === -32700 && /over the limit/.test(m.error.message));
      check(r !== null, 'a 100 MB line is answered with a parse error', r);
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 'after-big', method: 'ping' }));
      check(await s.next(byId('after-big')) !== null, 'the next line is served', null);
    });

    await step('10,000 pipelined requests', async () => {
      const n = 10000;
      let batch = '';
      s.got.length = 0;
      for (let i = 0; i < n; i++) {
        const m = i % 50 === 0
          ? { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'execute', arguments: { code: `return ${i}` } } }
          : i % 7 === 0 ? { jsonrpc: '2.0', id: i, method: 'tools/list' } : { jsonrpc: '2.0', id: i, method: 'ping' };
        batch += `${JSON.stringify(m)}\n`;
      }
      s.send(batch);
      const seen = new Set();
      let wrong = 0;
      for (let i = 0; i < n; i++) {
        const r = await s.next((m) => typeof m.id === 'number' && m.id >= 0 && m.id < n);
        if (!r) break;
        if (seen.has(r.id)) wrong++;
        seen.add(r.id);
        if (r.id % 50 === 0 && !(r.result && r.result.structuredContent && r.result.structuredContent.result === r.id)) wrong++;
      }
      check(seen.size === n && wrong === 0, 'each of 10,000 pipelined requests is answered once, correctly',
        `${seen.size} answered, ${wrong} wrong`);
    });

    await step('progress on the raw protocol', async () => {
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 'pr', method: 'tools/call', params: { name: 'execute',
        _meta: { progressToken: 42 }, arguments: { code: 'await tools.math.add({a: 1, b: 2}); return await tools.math.add({a: 3, b: 4})' } } }));
      const r = await s.next(byId('pr'));
      const before = s.got.filter((m) => m.method === 'notifications/progress');
      s.got.length = 0;
      check(r && r.result && r.result.structuredContent.result === 7, 'the call answers', r);
      check(JSON.stringify(before.map((m) => [m.params.progressToken, m.params.progress])) === '[[42,0],[42,1],[42,2]]',
        'progress 0, 1 and 2, with the token, all before the answer', before);
    });

    await step('cancellations that match nothing', async () => {
      s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nothing' } }));
      s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: 7 }));
      s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled' }));
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 'still', method: 'ping' }));
      check(await s.next(byId('still')) !== null, 'the server is still there after odd cancellations', null);
    });
  } finally {
    const t0 = Date.now();
    const r = await s.end();
    if (process.env.MCP_TRACE) console.log(`end: ${Date.now() - t0} ms`);
    check(r && r.code === 0, 'the server exits with 0 when its input ends', r);
    check(!/trap|Sanitizer|runtime error/.test(s.stderr), 'and wrote no crash to stderr', s.stderr);
  }

  await step('--fresh-each-call, --max-text and --fuel', async () => {
    const f = rawServer(['--fresh-each-call', '--max-text', '300', '--fuel', '2000000', '--max-body', '2048']);
    f.send(JSON.stringify(INIT));
    await f.next(byId('init'));
    f.send(JSON.stringify({ jsonrpc: '2.0', id: 'long', method: 'ping', params: { pad: 'p'.repeat(3000) } }));
    const long = await f.next((m) => m.error && m.error.code === -32700);
    check(long && /over the limit of 2048/.test(long.error.message), 'a line over --max-body is a parse error', long);
    const callF = (id, code) => f.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call',
      params: { name: 'execute', arguments: { code } } }));
    callF('w', 'globalThis.g = 1; fs.writeFileSync("f.txt", "x"); return "x".repeat(1000)');
    const w = await f.next(byId('w'));
    const text = w && w.result.content[0].text;
    check(text && text.length < 400 && /\[capsa: the text is cut at 300 bytes; \d+ more were not shown\]$/.test(text),
      'a result over --max-text is cut with a marker', text);
    check(w && w.result.structuredContent.truncated === true && w.result.structuredContent.result === null,
      'and the structured result says it was cut', w && w.result.structuredContent);
    callF('r', 'return [typeof g, fs.existsSync("f.txt")]');
    const r = await f.next(byId('r'));
    check(r && JSON.stringify(r.result.structuredContent.result) === '["undefined",false]',
      '--fresh-each-call: no globals and no files from the last call', r);
    callF('fuel', 'for (;;) {}');
    const fu = await f.next(byId('fuel'));
    check(fu && fu.result.isError && fu.result.structuredContent.status === 'fuel', '--fuel stops a loop', fu && fu.result.structuredContent);
    const e = await f.end();
    check(e && e.code === 0, 'that server exits cleanly', e);
  });

  await step('a queued request is cancelled', async () => {
    const q = rawServer();
    q.send(JSON.stringify(INIT));
    await q.next(byId('init'));
    q.send(JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'execute', arguments: { code: 'await tools.slow.sleep({ms: 100000})' } } }));
    q.send(JSON.stringify({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'execute', arguments: { code: 'fs.writeFileSync("b.txt", "ran")' } } }));
    q.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b', reason: 'no' } }));
    q.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a', reason: 'no' } }));
    q.send(JSON.stringify({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'execute', arguments: { code: 'return fs.existsSync("b.txt")' } } }));
    const c = await q.next(byId('c'));
    check(c && c.result && c.result.structuredContent.result === false, 'the cancelled queued call never ran', c);
    check(!q.got.some((m) => m.id === 'a' || m.id === 'b'), 'cancelled requests are not answered', q.got);
    const r = await q.end();
    check(r && r.code === 0, 'the server exits cleanly', r);
  });
}
