// The MCP client's suite: capsa run, shell and mcp with --mcp-config against real
// servers from the npm registry (server-everything over stdio and Streamable
// HTTP, server-memory, server-filesystem on a temporary directory, pinned by
// package-lock.json) and a hostile fake server (fake.mjs); the policy, the audit,
// results, concurrency, cancellation, restarts, reaping, bad configurations; and
// end to end, the SDK client -> capsa mcp --mcp-config -> server-everything; and
// capsa serve --mcp-config, a session moving between two replicas.
// Loopback only, free ports; every process started is stopped. Prints
// "N passed, N failed".
//   node main.mjs [fake|config|real|http|e2e|serve ...]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { capsa, check, here as mcpHere, sdk, step, summary, tempDir } from '../mcp/lib.mjs';

const here = join(mcpHere, '..', 'mcp_client');
const nodeDir = process.env.MCP_NODE_DIR;
const pkg = (name) => join(nodeDir, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const node = process.execPath;
const fake = join(here, 'fake.mjs');

// Runs capsa with args (stdin: input); resolves to { code, signal, stdout, stderr }.
// onSpawn(child) may act on it while it runs.
function run(args, { input = '', env = {}, timeoutMs = 120000, onSpawn } = {}) {
  return new Promise((resolve) => {
    const child = spawn(capsa, args, { env: { ...process.env, SECRET_TOKEN: 'do-not-pass-me', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => { clearTimeout(t); resolve({ code, signal, stdout, stderr }); });
    // A capsa that exits before reading its input (a usage error, a library it cannot
    // load) closes the pipe: EPIPE then, its exit status and output are what is checked.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    if (onSpawn) onSpawn(child);
  });
}

// A configuration file in a fresh directory; returns its path.
function config(servers) {
  const f = join(tempDir(), 'mcp.json');
  writeFileSync(f, JSON.stringify({ mcpServers: servers }));
  return f;
}

// capsa run --json of code with the servers; resolves to the parsed result
// ({stdout, stderr, value, error}) plus the process's code and stderr.
async function runJs(servers, code, extra = [], opts = {}) {
  const cfg = typeof servers === 'string' ? servers : config(servers);
  const r = await run(['run', '--json', '--mcp-config', cfg, ...extra, '-e', code], opts);
  let res = null;
  try { res = JSON.parse(r.stdout); } catch { /* checked by the caller */ }
  return { ...(res || {}), code: r.code, stderrText: r.stderr, raw: r.stdout };
}

function readLog(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

// Whether pid is a live process (a zombie, dead but not yet reaped by whoever
// inherited it, is not).
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

// A process another one killed with SIGKILL dies once the kernel schedules it:
// waits up to ms for it to be gone, and says whether it is.
async function goneWithin(pid, ms) {
  const end = Date.now() + ms;
  while (alive(pid) && Date.now() < end) await new Promise((res) => setTimeout(res, 20));
  return !alive(pid);
}

function fakeServer(log, extra = [], more = {}) {
  return { command: node, args: [fake, '--log', log, ...extra], ...more };
}

// A JS snippet that runs each named call and records its value or error.
const tryAll = (calls) => `const out = {};
for (const [k, f] of Object.entries({${calls}})) {
  try { out[k] = await f(); } catch (e) { out[k] = { error: e.code, message: e.message, name: e.name }; }
}
return out;`;

async function fakeSuite() {
  const dir = tempDir();
  const log = join(dir, 'fake.log');
  const mcpLog = join(dir, 'servers.log');
  const audit = join(dir, 'audit.jsonl');
  const cfg = config({ fake: fakeServer(log, [], { env: { GIVEN: '1' } }) });

  await step('fake: tools, names and declarations', async () => {
    const r = await runJs(cfg, `return { names: tools.list().map(t => t.name),
      dts: fs.readFileSync('/tools/fake.echo.d.ts', 'utf8'), index: fs.readFileSync('/tools/index.d.ts', 'utf8'),
      structured: fs.readFileSync('/tools/fake.structured.d.ts', 'utf8'), sum: tools.describe('fake.get_sum').description }`,
    ['--allow', '**']);
    const v = r.value || {};
    const names = v.names || [];
    check(names.includes('fake.echo') && names.includes('fake.no_schema'), 'fake: tools of every page are listed (3 a page)', names);
    check(names.includes('fake.get_sum') && names.includes('fake._1st') && names.includes('fake.x_y_z'),
      'fake: names become identifiers (get-sum, 1st, "x y.z")', names);
    check(names.includes('fake.a_b') && names.includes('fake.a_b_2'), 'fake: names that collide are made unique', names);
    check(names.every((n) => n.length <= 128) && names.some((n) => n.startsWith('fake.nnnn')), 'fake: a 200-byte name is cut to fit', names);
    check(!names.includes('fake.bad_schema') && /bad_schema.*left out.*"type" must be "object"/.test(r.stderrText),
      'fake: a tool whose schema capsa refuses is left out, and said so', r.stderrText);
    check(/function fake_echo\(args\?: FakeEchoArgs\)/.test(v.dts || '') && /text\?: string/.test(v.dts || ''),
      'fake: the declaration has the inputSchema\'s types', v.dts);
    check((v.dts || '').includes("(MCP server 'fake', tool 'echo')"), 'fake: the description keeps the original names', v.dts);
    check((v.sum || '').includes("tool 'get-sum'"), 'fake: a renamed tool\'s description names its original', v.sum);
    check(/type FakeStructuredResult = \{\n\s*n: number;\n\s*tag\?: string;/.test(v.structured || '') &&
      /function fake_structured\(args\?: FakeStructuredArgs\): Promise<FakeStructuredResult>;/.test(v.structured || ''),
      'fake: the outputSchema is the declared return type', v.structured);
    check(/function fake_echo\(args\?: FakeEchoArgs\): Promise<any>;/.test(v.dts || ''),
      'fake: a tool without an outputSchema returns Promise<any>', v.dts);
    check(/fake: \{/.test(v.index || '') && /echo: typeof fake_echo/.test(v.index || ''), 'fake: index.d.ts has the tools.fake namespace', v.index);
  });

  await step('fake: a --session resumed with the upstream tools', async () => {
    const ses = join(dir, 'session.ckpt');
    const a = await runJs(cfg, "globalThis.k = (await tools.fake.echo({ text: 'one' })).args.text; return k",
      ['--allow', 'fake.echo', '--session', ses]);
    const b = await runJs(cfg, "return k + ' ' + (await tools.fake.echo({ text: 'two' })).args.text + ' ' + " +
      "await tools.fake.pid({}).catch((e) => e.code)", ['--session', ses]);
    check(a.value === 'one' && b.value === 'one two permission_denied',
      'fake: a session resumed with --mcp-config calls the server again, its policy kept', [a.value, b.value, b.stderrText]);
    const c = await run(['run', '--session', ses, '-e', 'return 1']);
    check(c.code === 2 && /fake\.[a-z_]+.*no definition.*--mcp-config/.test(c.stderr),
      'fake: resumed without --mcp-config, the missing tool is named', [c.code, c.stderr]);
  });

  await step('fake: results', async () => {
    const r = await runJs(cfg, tryAll(`
      echo: () => tools.fake.echo({ text: 'a\\nb "q" \\u00e9' }),
      raw: () => tools.call('fake.echo', '{\\n  "text" : "spaced"\\n}'),
      flat: () => fake_echo({ text: 'flat' }),
      fail: () => tools.fake.fail({}),
      rpc: () => tools.fake.rpc_error({}),
      notobj: () => tools.fake.not_object({}),
      structured: () => tools.fake.structured({}),
      image: () => tools.fake.image({}),
      big: () => tools.fake.bigint({}),
      other: () => tools.fake.get_sum({ x: 1 }),
      garbage: () => tools.fake.garbage({}),
      ask: () => tools.fake.ask({}),
      chatty: () => tools.fake.chatty({ n: 20000 }),
      env: () => tools.fake.env({}),
      fds: () => tools.fake.fds({}),`), ['--allow', '**', '--audit', audit, '--mcp-log', mcpLog]);
    const v = r.value || {};
    check(JSON.stringify(v.echo) === JSON.stringify({ tool: 'echo', args: { text: 'a\nb "q" é' } }),
      'fake: the arguments arrive as the script gave them', v.echo);
    check(v.raw && v.raw.args && v.raw.args.text === 'spaced', 'fake: JSON text with line breaks still makes one stdio message', v.raw);
    check(v.flat && v.flat.args.text === 'flat', 'fake: the flat name fake_echo works', v.flat);
    check(v.fail && v.fail.error === 'tool_error' && v.fail.message === 'it failed on purpose' && v.fail.name === 'ToolError',
      'fake: isError rejects with an Error carrying the server\'s text', v.fail);
    check(v.rpc && v.rpc.error === 'upstream_error' && /answered error -32000: no way/.test(v.rpc.message),
      'fake: a JSON-RPC error rejects with upstream_error and its message', v.rpc);
    check(v.notobj && v.notobj.error === 'upstream_error', 'fake: a result that is not an object is an upstream_error', v.notobj);
    check(JSON.stringify(v.structured) === '{"n":1,"tag":"structured"}', 'fake: structuredContent is the value', v.structured);
    check(JSON.stringify(v.image) === '["a picture:",{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]',
      'fake: text and an image become [text, {type, mimeType, data}]', v.image);
    check(v.big && v.big.n === 2 ** 64 && v.big.small === 1, 'fake: an integer beyond 64 bits arrives as the double JSON.parse makes', v.big);
    check(v.other && v.other.args && v.other.args.x === 1, 'fake: text content that is JSON is parsed', v.other);
    check(v.garbage === 'survived', 'fake: malformed lines, wrong ids and a duplicate key do not break the connection', v.garbage);
    check(/dropped a message: Parse error/.test(r.stderrText) && /answer to no request/.test(r.stderrText),
      'fake: the dropped messages are reported', r.stderrText);
    const ask = Array.isArray(v.ask) ? v.ask : [];
    check(ask.length === 4 && ask.slice(0, 3).every((a) => a.error === -32601) && ask[3].error === null,
      'fake: sampling, elicitation and roots are declined with -32601, ping is answered', v.ask);
    check(v.chatty === 'done talking', 'fake: 20,000 notifications before an answer do not wedge it', v.chatty);
    const logText = existsSync(mcpLog) ? readFileSync(mcpLog, 'utf8') : '';
    check(logText.includes('chat 19999') && logText.includes('[fake]'), 'fake: its log messages go to --mcp-log', logText.slice(-300));
    check(JSON.stringify(v.env) === '["GIVEN","PATH"]', 'fake: the server sees only its env and PATH (not SECRET_TOKEN)', v.env);
    const fds = Array.isArray(v.fds) ? v.fds : [];
    check(fds.length > 0 && !fds.some((l) => l.includes(audit) || l.includes(mcpLog)),
      'fake: no descriptor of capsa\'s (the audit file, the log) reaches the server', fds);
    const lines = readFileSync(audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const calls = lines.filter((l) => l.event === 'tool_call');
    check(calls.some((l) => l.tool === 'fake.echo' && l.decision === 'allowed' && l.outcome === 'ok'),
      'fake: calls are audited', calls.slice(0, 3));
    check(calls.some((l) => l.tool === 'fake.fail' && l.outcome === 'error' && l.error_code === 'tool_error'),
      'fake: a failed call is audited with its code', calls.filter((l) => l.tool === 'fake.fail'));
  });

  await step('fake: the policy decides before anything is sent', async () => {
    const pol = join(tempDir(), 'policy.json');
    writeFileSync(pol, JSON.stringify({ capabilities: [
      { pattern: 'fake.echo', constraints: [{ param: 'text', op: '==', value: 'ok' }], max_calls: 2 },
      { pattern: 'fake.calls' }] }));
    const plog = join(tempDir(), 'fake.log');
    const r = await runJs({ fake: fakeServer(plog) }, tryAll(`
      denied: () => tools.fake.pid({}),
      constraint: () => tools.fake.echo({ text: 'no' }),
      ok1: () => tools.fake.echo({ text: 'ok' }),
      ok2: () => tools.fake.echo({ text: 'ok' }),
      budget: () => tools.fake.echo({ text: 'ok' }),
      remote: () => tools.call('echo', '{}'),
      slash: () => tools.call('fake/pid', '{}'),
      badtype: () => tools.fake.echo({ text: 5 }),
      missing: () => tools.fake.slow({}),
      calls: () => tools.fake.calls({}),`), ['--policy', pol, '--audit', join(tempDir(), 'audit.jsonl')]);
    const v = r.value || {};
    check(v.denied && v.denied.error === 'permission_denied' && /fake\.pid/.test(v.denied.message),
      'fake: an ungranted upstream tool is permission_denied', v.denied);
    check(v.constraint && v.constraint.error === 'permission_denied' && /text == "ok"/.test(v.constraint.message),
      'fake: a constraint on the arguments refuses the call', v.constraint);
    check(v.ok1 && v.ok2 && v.ok1.args && v.ok2.args, 'fake: allowed calls go through', [v.ok1, v.ok2]);
    check(v.budget && v.budget.error === 'permission_denied', 'fake: the call budget (max_calls 2) is enforced', v.budget);
    check(v.remote && v.remote.error === 'unknown_tool', 'fake: the server\'s own names are not tools of the sandbox', v.remote);
    check(v.slash && v.slash.error === 'permission_denied' && /fake\.pid/.test(v.slash.message),
      'fake: fake/pid is fake.pid, and as ungranted', v.slash);
    check(v.badtype && v.badtype.error === 'invalid_arguments' && /\/text: expected string, got number/.test(v.badtype.message),
      'fake: arguments against the inputSchema are refused on the host, naming the argument and the rule', v.badtype);
    check(v.missing && v.missing.error === 'invalid_arguments' && /missing required property 'ms'/.test(v.missing.message),
      'fake: a required argument left out is refused on the host', v.missing);
    check(JSON.stringify(v.calls) === '["echo","echo","calls"]', 'fake: only the allowed calls reached the server', v.calls);
    const got = readLog(plog).filter((e) => e.method === 'tools/call').map((e) => e.name);
    check(JSON.stringify(got) === '["echo","echo","calls"]', 'fake: the server\'s own log agrees', got);
  });

  await step('fake: S.* grants every tool of S and no other server\'s', async () => {
    const glog = join(tempDir(), 'fake.log');
    const r = await runJs({ fake: fakeServer(glog), other: fakeServer(glog) }, tryAll(`
      pid: () => tools.fake.pid({}),
      echo: () => tools.fake.echo({ text: 'star' }),
      other: () => tools.other.pid({}),`), ['--allow', 'fake.*']);
    const v = r.value || {};
    check(v.pid && v.pid.pid > 0 && v.echo && v.echo.args.text === 'star', 'fake: --allow fake.* grants fake.pid and fake.echo', [v.pid, v.echo]);
    check(v.other && v.other.error === 'permission_denied', 'fake: ... and not other.pid', v.other);
    const got = readLog(glog).filter((e) => e.method === 'tools/call').map((e) => e.name).sort();
    check(JSON.stringify(got) === '["echo","pid"]', 'fake: the denied call never reached its server', got);
  });

  await step('fake: concurrency, timeouts and cancellation', async () => {
    const clog = join(tempDir(), 'fake.log');
    // The same server twice: once with a short timeout for the call that hangs.
    const r = await runJs({ fake: fakeServer(clog), quick: fakeServer(clog, [], { timeout_ms: 1000 }) }, tryAll(`
      slow: () => Promise.all([1, 2, 3, 4].map(() => tools.fake.slow({ ms: 300 }))),
      max: () => tools.fake.max_inflight({}),
      many: () => Promise.all(Array.from({ length: 12 }, () => tools.fake.slow({ ms: 500 }))),
      bound: () => tools.fake.max_inflight({}),
      hang: () => tools.quick.hang({}),
      after: () => tools.quick.echo({ text: 'after' }),`), ['--allow', '**']);
    const v = r.value || {};
    check(Array.isArray(v.slow) && v.slow.length === 4, 'fake: Promise.all of four calls answers all four', v.slow);
    check(typeof v.max === 'number' && v.max >= 2 && v.max <= 4, 'fake: calls made together were in flight together on one connection', v.max);
    check(Array.isArray(v.many) && v.many.length === 12 && typeof v.bound === 'number' && v.bound >= 2 && v.bound <= 8,
      'fake: twelve calls at once are bounded by the tool workers (8 in flight at most)', [v.bound, v.many && v.many.length]);
    check(v.hang && v.hang.error === 'timeout', 'fake: a call the server never answers fails at its timeout_ms', v.hang);
    const events = readLog(clog);
    const calls = events.filter((e) => e.method === 'tools/call' && e.name === 'hang');
    const cancels = events.filter((e) => e.method === 'notifications/cancelled').map((e) => e.params.requestId);
    check(calls.length === 1 && JSON.stringify(cancels) === JSON.stringify([calls[0].id]),
      'fake: the timed-out request is cancelled upstream (notifications/cancelled with its id)', [cancels, calls]);
    check(v.after && v.after.args && v.after.args.text === 'after', 'fake: the connection still works after it', v.after);
  });

  await step('fake: the run\'s limit cancels its calls, and the server is reaped', async () => {
    const tlog = join(tempDir(), 'fake.log');
    const r = await run(['run', '--timeout', '1', '--allow', '**', '--mcp-config',
      config({ fake: fakeServer(tlog, ['--grandchild']) }), '-e',
      'const p = await tools.fake.pid({}); console.log(JSON.stringify(p)); await tools.fake.hang({})']);
    check(r.code === 3, 'fake: the run stops at its time limit (exit status 3)', r);
    let p = {};
    try { p = JSON.parse(r.stdout.split('\n')[0]); } catch { /* checked below */ }
    const events = readLog(tlog);
    const hang = events.find((e) => e.method === 'tools/call' && e.name === 'hang');
    const cancel = events.find((e) => e.method === 'notifications/cancelled');
    check(hang && cancel && cancel.params.requestId === hang.id, 'fake: the run\'s end sent notifications/cancelled for the hanging call', events.slice(-4));
    check(events.some((e) => e.event === 'stdin_end'), 'fake: capsa closed the server\'s stdin when it stopped', events.slice(-3));
    check(p.pid > 0 && !alive(p.pid), 'fake: the server process is gone after capsa exits', p);
    check(p.grandchild > 0 && await goneWithin(p.grandchild, 2000), 'fake: so is the child it started (its process group, killed as capsa stops)', p);
  });

  await step('fake: huge messages, crashes and restarts', async () => {
    const hlog = join(tempDir(), 'fake.log');
    const r = await runJs({ fake: fakeServer(hlog) }, tryAll(`
      huge: () => tools.fake.huge({ mb: 20 }),
      first: () => tools.fake.pid({}),
      over: () => tools.fake.huge({ mb: 40 }),
      second: () => tools.fake.pid({}),
      crash: () => tools.fake.crash({}),
      third: () => tools.fake.pid({}),`), ['--allow', '**']);
    const v = r.value || {};
    check(v.huge && v.huge.error === 'result_too_large', 'fake: a 20 MiB result is over the result budget (result_too_large)', v.huge);
    check(v.over && v.over.error === 'upstream_unavailable' && /over 33554432 bytes/.test(v.over.message),
      'fake: a 40 MiB message stops the server with a clear error', v.over);
    check(v.first && v.second && v.first.pid !== v.second.pid, 'fake: it is started again on its next call', [v.first, v.second]);
    check(v.crash && v.crash.error === 'upstream_unavailable' && /exited with status 3/.test(v.crash.message),
      'fake: a server that crashes fails its call with a clear error', v.crash);
    check(v.third && v.third.pid !== v.second.pid, 'fake: and works again on the next call, restarted after its backoff', v.third);
    check(/starting it again \(restart 2\)/.test(r.stderrText), 'fake: the restarts are reported', r.stderrText);
    const backoffs = [...r.stderrText.matchAll(/after a backoff of (\d+) ms/g)].map((m) => Number(m[1]));
    check(JSON.stringify(backoffs) === '[200,400]', 'fake: the backoff starts under a second and doubles for a server that keeps dying', backoffs);
    const pids = [...new Set(readLog(hlog).map((e) => e.pid))];
    check(pids.length === 3 && pids.every((q) => !alive(q)), 'fake: each of its three processes was reaped', pids);
  });

  await step('fake: killed mid-call', async () => {
    const klog = join(tempDir(), 'fake.log');
    const code = `const a = await tools.fake.pid({});
      let err = null;
      try { await tools.fake.slow({ ms: 60000 }); } catch (e) { err = { code: e.code, message: e.message }; }
      const b = await tools.fake.pid({});
      return { a, err, b }`;
    const r = await runJs({ fake: fakeServer(klog) }, code, ['--allow', '**', '--timeout', '100'], {
      onSpawn: () => {
        const poll = setInterval(() => {
          const slow = readLog(klog).find((e) => e.method === 'tools/call' && e.name === 'slow');
          if (slow) { clearInterval(poll); process.kill(slow.pid, 'SIGKILL'); }
        }, 20);
        setTimeout(() => clearInterval(poll), 60000);
      },
    });
    const v = r.value || {};
    check(v.err && v.err.code === 'upstream_unavailable' && /killed by signal 9/.test(v.err.message),
      'fake: a server killed during a call fails that call at once, saying so', v.err || r);
    check(v.a && v.b && v.a.pid !== v.b.pid, 'fake: the next call runs on a new process', [v.a, v.b]);
  });

  await step('fake: the shell, and a list that changes', async () => {
    const slog = join(tempDir(), 'fake.log');
    const cfgs = config({ fake: fakeServer(slog) });
    const r = await run(['shell', '--mcp-config', cfgs, '--allow', '**', '-c', 'tool fake.echo --text "from sh" | jq -r .args.text']);
    check(r.code === 0 && r.stdout === 'from sh\n', 'fake: `tool fake.echo --text ...` in the shell', r);
    const i = await run(['shell', '--mcp-config', cfgs, '--allow', '**'],
      { input: 'tool fake.add_tool --name late_tool\ntool fake.late_tool | jq -r .tool\n' });
    check(i.stdout.includes('added') && i.stdout.includes('late_tool\n'),
      'fake: after notifications/tools/list_changed, the new tool is callable from the next line', i);
    check(!/is left out/.test(i.stderr.replace(/.*bad_schema.*\n/g, '')), 'fake: the tools listed again are not registered twice', i.stderr);
  });

  await step('fake: servers that fail to start', async () => {
    const flog = join(tempDir(), 'fake.log');
    const r = await runJs({
      missing: { command: 'no-such-program-capsa' },
      exits: fakeServer(flog, ['--exit']),
      mute: fakeServer(flog, ['--mute'], { start_timeout_ms: 500 }),
      version: fakeServer(flog, ['--bad-version']),
      nolist: fakeServer(flog, ['--list-error']),
      baddir: { command: node, args: [fake], cwd: '/nonexistent/dir' },
      off: { command: node, args: [fake], disabled: true },
      good: fakeServer(flog),
    }, 'return tools.list().map(t => t.name.split(".")[0]).filter((x, i, a) => a.indexOf(x) === i)', ['--allow', '**']);
    check(r.code === 0 && JSON.stringify(r.value) === '["good"]', 'fake: only the server that started has tools', r.value || r);
    const e = r.stderrText;
    check(/'missing'.*not found on its PATH/.test(e), 'fake: a command not found is reported', e);
    check(/'exits'.*exited with status 7/.test(e), 'fake: a server that exits at once is reported with its status', e);
    check(/'mute'.*did not answer initialize within 500 ms/.test(e), 'fake: one that never answers initialize is reported at its start_timeout_ms', e);
    check(/'version'.*speaks MCP 1999-01-01/.test(e), 'fake: an unknown protocol version is refused', e);
    check(/'nolist'.*tools\/list failed: no list today/.test(e), 'fake: a failed tools/list is reported', e);
    check(/'baddir'.*is not a directory/.test(e), 'fake: a cwd that does not exist is reported', e);
    check(!/'off'/.test(e), 'fake: a disabled server is not started', e);
  });
}

async function configSuite() {
  const cases = [
    ['{', /not JSON: line/],
    ['{"servers": {}}', /servers: unknown field/],
    ['{"mcpServers": []}', /mcpServers: must be an object/],
    ['{"mcpServers": {"a": {"comand": "x"}}}', /mcpServers\.a\.comand: unknown field/],
    ['{"mcpServers": {"a": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}', /mcpServers\.a\.type: .*SSE transport is not supported/],
    ['{"mcpServers": {"a": {"command": "x", "args": "y"}}}', /mcpServers\.a\.args: must be an array/],
    ['{"mcpServers": {"a": {"command": "x", "args": ["y", 1]}}}', /mcpServers\.a\.args\[1\]: must be a string/],
    ['{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}', /mcpServers\.a\.env\.K: must be a string/],
    ['{"mcpServers": {"a": {"command": "x", "url": "http://127.0.0.1:1/mcp"}}}', /both "command" and "url"/],
    ['{"mcpServers": {"a": {"url": "ftp://127.0.0.1/mcp"}}}', /mcpServers\.a\.url: must start with http/],
    ['{"mcpServers": {"a": {"url": "http://127.0.0.1:1/mcp", "headers": {"X": "a\\nb"}}}}', /headers\.X: must be a string without line breaks/],
    ['{"mcpServers": {"a": {"command": ""}}}', /mcpServers\.a\.command: must be a non-empty string/],
    ['{"mcpServers": {"a": {}}}', /mcpServers\.a\.command: is required/],
    ['{"mcpServers": {"a": {"command": "x", "timeout_ms": 0}}}', /timeout_ms: must be a whole number/],
    ['{"mcpServers": {"a": {"command": "x", "command": "y"}}}', /duplicate object key/],
  ];
  for (const [text, want] of cases) {
    const f = join(tempDir(), 'bad.json');
    writeFileSync(f, text);
    const r = await run(['run', '--mcp-config', f, '-e', 'return 1']);
    check(r.code === 2 && want.test(r.stderr) && r.stdout === '', `config: ${text.slice(0, 60)} is refused naming the fault`, r);
  }
  const r = await run(['run', '--mcp-config', '/nonexistent/mcp.json', '-e', 'return 1']);
  check(r.code === 2 && /cannot read '\/nonexistent\/mcp.json'/.test(r.stderr), 'config: a missing file is refused', r);
  const a = config({ dup: { command: 'x', disabled: true } });
  const b = config({ dup: { command: 'y', disabled: true } });
  const d = await run(['run', '--mcp-config', a, '--mcp-config', b, '-e', 'return 1']);
  check(d.code === 2 && /mcpServers\.dup: a server of that name was added before/.test(d.stderr), 'config: a name in two files is refused', d);
  const m = await run(['run', '--mcp-config']);
  check(m.code === 2 && /--mcp-config needs a value/.test(m.stderr), 'config: --mcp-config without a file is a usage error', m);
  const ns = config({ list: { command: node, args: [fake] }, 'my-srv': { command: node, args: [fake] }, my_srv: { command: node, args: [fake] } });
  const n = await runJs(ns, 'return [...new Set(tools.list().map(t => t.name.split(".")[0]))].sort()', ['--allow', '**']);
  check(JSON.stringify(n.value) === '["list_2","my_srv","my_srv_2"]', 'config: server names become unique identifiers, never tools.list', n.value || n);
}

// A free loopback port (the kernel's choice).
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function realSuite() {
  const everything = { command: node, args: [pkg('server-everything'), 'stdio'] };
  await step('everything (stdio)', async () => {
    const r = await runJs({ everything }, tryAll(`
      echo: () => tools.everything.echo({ message: 'hi' }),
      sum: () => tools.everything.get_sum({ a: 2, b: 40 }),
      weather: () => tools.everything.get_structured_content({ location: 'Chicago' }),
      image: () => tools.everything.get_tiny_image({}),
      all: () => Promise.all([1, 2, 3].map(i => tools.everything.get_sum({ a: i, b: i }))),
      dts: async () => fs.readFileSync('/tools/everything.get_structured_content.d.ts', 'utf8'),`), ['--allow', '**']);
    const v = r.value || {};
    check(v.echo === 'Echo: hi', 'everything: echo', v.echo);
    check(typeof v.sum === 'string' && v.sum.includes('42'), 'everything: get-sum, as everything.get_sum', v.sum);
    check(v.weather && v.weather.conditions === 'Light rain / drizzle' && typeof v.weather.temperature === 'number',
      'everything: structuredContent is the value', v.weather);
    check(Array.isArray(v.image) && v.image.some((x) => x && x.type === 'image' && x.mimeType === 'image/png' && x.data.length > 100),
      'everything: an image comes as {type, mimeType, data}', JSON.stringify(v.image).slice(0, 200));
    check(Array.isArray(v.all) && v.all.length === 3, 'everything: concurrent calls', v.all);
    check(/location: "New York" \| "Chicago" \| "Los Angeles"/.test(v.dts || ''), 'everything: the declaration types the enum', v.dts);
    check(/type EverythingGetStructuredContentResult = \{[^}]*temperature: number;/.test(v.dts || '') &&
      /\): Promise<EverythingGetStructuredContentResult>;/.test(v.dts || ''), 'everything: its outputSchema is the declared result', v.dts);
  });

  await step('memory: entities made, then read back and filtered by concurrent calls', async () => {
    const dir = tempDir();
    const memory = { command: node, args: [pkg('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } };
    const code = `
      const people = ['ada', 'bob', 'cy', 'dee', 'eve'];
      // One at a time: the server rewrites its whole file on each change, so
      // concurrent writes of its own would lose entities.
      for (const [i, p] of people.entries())
        await tools.memory.create_entities({ entities: [
          { name: p, entityType: i % 2 ? 'robot' : 'person', observations: ['likes ' + (i % 2 ? 'oil' : 'tea')] }] });
      await tools.memory.create_relations({ relations: [{ from: 'ada', to: 'bob', relationType: 'knows' }] });
      const graph = await tools.memory.read_graph({});
      const [tea, oil, opened] = await Promise.all([tools.memory.search_nodes({ query: 'tea' }),
        tools.memory.search_nodes({ query: 'oil' }), tools.memory.open_nodes({ names: ['ada', 'eve'] })]);
      return { all: graph.entities.map(e => e.name).sort(), relations: graph.relations.length,
        tea: tea.entities.map(e => e.name).sort(), robots: oil.entities.filter(e => e.entityType === 'robot').map(e => e.name).sort(),
        opened: opened.entities.length, calls: 0 }`;
    const r = await runJs({ memory }, code, ['--allow', '**']);
    const v = r.value || {};
    check(JSON.stringify(v.all) === '["ada","bob","cy","dee","eve"]', 'memory: five entities made by the script are read back', v.all || r);
    check(v.relations === 1, 'memory: the relation is there', v);
    check(JSON.stringify(v.tea) === '["ada","cy","eve"]' && JSON.stringify(v.robots) === '["bob","dee"]',
      'memory: searched and filtered in the script', v);
    check(v.opened === 2, 'memory: open_nodes', v);
    const saved = readFileSync(join(dir, 'memory.jsonl'), 'utf8');
    check(saved.includes('"ada"') && saved.split('\n').filter(Boolean).length === 6, 'memory: the server kept them in its file', saved);
  });

  await step('filesystem: on a temporary directory', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'in.txt'), 'one\ntwo\n');
    const filesystem = { command: node, args: [pkg('server-filesystem'), dir] };
    const r = await runJs({ filesystem }, tryAll(`
      read: () => tools.filesystem.read_text_file({ path: ${JSON.stringify(join(dir, 'in.txt'))} }),
      write: () => tools.filesystem.write_file({ path: ${JSON.stringify(join(dir, 'out.txt'))}, content: 'from the sandbox' }),
      list: () => tools.filesystem.list_directory({ path: ${JSON.stringify(dir)} }),
      outside: () => tools.filesystem.read_text_file({ path: '/etc/passwd' }),`), ['--allow', '**']);
    const v = r.value || {};
    const read = v.read && (v.read.content || v.read);
    check(typeof read === 'string' && read.includes('one\ntwo'), 'filesystem: a file read through the server', v.read);
    check(readFileSync(join(dir, 'out.txt'), 'utf8') === 'from the sandbox', 'filesystem: a file written through the server', v.write);
    check(JSON.stringify(v.list).includes('in.txt') && JSON.stringify(v.list).includes('out.txt'), 'filesystem: list_directory', v.list);
    check(v.outside && v.outside.error === 'tool_error' && /denied|outside/i.test(v.outside.message),
      'filesystem: the server\'s own refusal rejects the call', v.outside);
  });
}

async function httpSuite() {
  const port = await freePort();
  const child = spawn(node, [pkg('server-everything'), 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((r) => child.on('exit', r));
  try {
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`server-everything did not start: ${out}`)), 30000);
      const poll = setInterval(() => { if (/listening on port/.test(out)) { clearInterval(poll); clearTimeout(t); resolve(); } }, 20);
    });
    const url = `http://127.0.0.1:${port}/mcp`;
    await step('http: server-everything over Streamable HTTP', async () => {
      const r = await runJs({ remote: { type: 'http', url, headers: { 'X-Test': 'capsa' } } }, tryAll(`
        echo: () => tools.remote.echo({ message: 'over http' }),
        all: () => Promise.all([1, 2, 3, 4].map(i => tools.remote.get_sum({ a: i, b: 1 }))),
        weather: () => tools.remote.get_structured_content({ location: 'New York' }),
        names: async () => tools.list().length,`), ['--allow', '**']);
      const v = r.value || {};
      check(v.echo === 'Echo: over http', 'http: echo', v.echo || r);
      check(Array.isArray(v.all) && v.all.length === 4 && v.all[3].includes('5'), 'http: concurrent calls', v.all);
      check(v.weather && v.weather.conditions === 'Cloudy', 'http: structuredContent', v.weather);
      check(v.names > 10, 'http: its tools are listed', v.names);
    });
    await step('http: a denied call and an unreachable server', async () => {
      const dead = await freePort();
      const r = await runJs({ remote: { url }, gone: { url: `http://127.0.0.1:${dead}/mcp`, start_timeout_ms: 3000 } },
        tryAll(`denied: () => tools.remote.get_env({}), names: async () => tools.list().filter(t => t.name.startsWith('gone.')).length,`),
        ['--allow', 'remote.echo']);
      const v = r.value || {};
      check(v.denied && v.denied.error === 'permission_denied', 'http: an ungranted tool is denied', v.denied);
      check(v.names === 0 && /'gone'.*failed to start: .*is unreachable at/.test(r.stderrText), 'http: an unreachable server is reported, its tools absent', r.stderrText);
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

// The fake server over HTTP (fake.mjs --http): resolves to { url, log, stop() }.
async function startFakeHttp(extra = []) {
  const log = join(tempDir(), 'fake-http.log');
  const child = spawn(node, [fake, '--http', '--log', log, ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const exited = new Promise((r) => child.on('exit', r));
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the fake HTTP server did not start: ${err}`)), 30000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (\d+)/.exec(err);
      if (m) { clearTimeout(t); resolve(Number(m[1])); }
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, log, async stop() { child.kill('SIGTERM'); await exited; } };
}

async function fakeHttpSuite() {
  const srv = await startFakeHttp();
  try {
    const servers = { fake: { url: srv.url, headers: { 'X-Capsa-Test': 'yes' } },
      quick: { url: srv.url, timeout_ms: 1000 } };
    await step('fake http: results and hostile answers over SSE', async () => {
      const r = await runJs(servers, tryAll(`
        echo: () => tools.fake.echo({ text: 'over http' }),
        headers: () => tools.fake.headers({}),
        structured: () => tools.fake.structured({}),
        fail: () => tools.fake.fail({}),
        ask: () => tools.fake.ask({}),
        garbage: () => tools.fake.garbage({}),
        chatty: () => tools.fake.chatty({ n: 5000 }),
        slow: () => Promise.all([1, 2, 3].map(() => tools.fake.slow({ ms: 300 }))),
        max: () => tools.fake.max_inflight({}),
        hang: () => tools.quick.hang({}),
        huge: () => tools.fake.huge({ mb: 20 }),
        over: () => tools.fake.huge({ mb: 40 }),
        broken: () => tools.fake.http500({}),
        after: () => tools.fake.echo({ text: 'still' }),
        drop: () => tools.fake.drop_session({}),
        again: () => tools.fake.echo({ text: 'new session' }),`), ['--allow', '**']);
      const v = r.value || {};
      check(v.echo && v.echo.args.text === 'over http', 'fake http: a call over Streamable HTTP', v.echo || r);
      const h = v.headers || {};
      check(h['x-capsa-test'] === 'yes' && /^s\d+$/.test(h['mcp-session-id'] || '') && h['mcp-protocol-version'] === '2025-11-25',
        'fake http: the configured headers, the session id and the protocol version are sent', h);
      check(JSON.stringify(v.structured) === '{"n":1,"tag":"structured"}', 'fake http: structuredContent', v.structured);
      check(v.fail && v.fail.error === 'tool_error', 'fake http: isError', v.fail);
      const ask = Array.isArray(v.ask) ? v.ask : [];
      check(ask.length === 4 && ask.slice(0, 3).every((a) => a.error === -32601) && ask[3].error === null,
        'fake http: the server\'s requests on the stream are declined (ping answered)', v.ask);
      check(v.garbage === 'survived' && v.chatty === 'done talking', 'fake http: malformed events and a flood of notifications', [v.garbage, v.chatty]);
      check(Array.isArray(v.slow) && v.max >= 2, 'fake http: concurrent calls are in flight together', [v.slow, v.max]);
      check(v.hang && v.hang.error === 'timeout', 'fake http: a hanging call times out', v.hang);
      check(v.huge && v.huge.error === 'result_too_large', 'fake http: a 20 MiB result is over the result budget', v.huge);
      check(v.over && v.over.error === 'upstream_error' && /over 33554432 bytes/.test(v.over.message),
        'fake http: a 40 MiB event is refused, the transfer cut', v.over);
      check(v.broken && v.broken.error === 'upstream_error' && /HTTP 500/.test(v.broken.message), 'fake http: an HTTP 500 is an upstream_error', v.broken);
      check(v.after && v.after.args.text === 'still', 'fake http: the session survives all that', v.after);
      check(v.drop === 'dropped' && v.again && v.again.args && v.again.args.text === 'new session',
        'fake http: a session the server forgot (404) is initialized anew on the next call', [v.drop, v.again]);
      const events = readLog(srv.log);
      const hang = events.find((e) => e.method === 'tools/call' && e.name === 'hang');
      check(hang && events.some((e) => e.method === 'notifications/cancelled' && e.params.requestId === hang.id),
        'fake http: the hanging call is cancelled upstream', events.filter((e) => e.method === 'notifications/cancelled'));
      check(events.some((e) => e.event === 'delete'), 'fake http: the session is ended with DELETE when capsa is done', events.slice(-3));
    });
    await step('fake http: a list that changes', async () => {
      const i = await run(['shell', '--mcp-config', config(servers), '--allow', '**'],
        { input: 'tool fake.add_tool --name web_tool\ntool fake.web_tool | jq -r .tool\n' });
      check(i.stdout.includes('web_tool\n'), 'fake http: list_changed on the stream brings the new tool', i);
    });
  } finally {
    await srv.stop();
  }
  const js = await startFakeHttp(['--json']);
  try {
    await step('fake http: JSON answers', async () => {
      const r = await runJs({ fake: { url: js.url } }, 'return [await tools.fake.echo({ text: "json" }), await tools.fake.pid({})]', ['--allow', '**']);
      check(Array.isArray(r.value) && r.value[0].args.text === 'json', 'fake http: a server answering application/json', r.value || r);
    });
  } finally {
    await js.stop();
  }
}

async function e2eSuite() {
  await step('lazylibs: a libcurl or libmicrohttpd other than the one capsa was built for', async () => {
    // libcurl and libmicrohttpd are loaded when first used (net/lazylibs.c): a
    // library of that SONAME without their functions, found first on
    // LD_LIBRARY_PATH, is refused with a message that names it.
    const dir = tempDir();
    for (const so of ['libcurl.so.4', 'libmicrohttpd.so.12']) {
      const cc = spawnSync('cc', ['-shared', '-x', 'c', '/dev/null', '-o', join(dir, so)], { encoding: 'utf8' });
      check(cc.status === 0, `lazylibs: an empty ${so} is built`, cc.stderr);
    }
    const env = { LD_LIBRARY_PATH: dir };
    const r = await runJs({ remote: { url: 'http://127.0.0.1:9/mcp', start_timeout_ms: 3000 } },
      'return tools.list().length', [], { env });
    check(r.code === 0 && r.value === 0, 'lazylibs: without libcurl the run goes on, without the server\'s tools', r);
    check(/'remote'.*libcurl\.so\.4 has no function curl_global_init/.test(r.stderrText),
      'lazylibs: the HTTP server is reported with the library that failed', r.stderrText);
    const stdio = await runJs({ fake: fakeServer(join(dir, 'fake.log')) }, 'return (await tools.fake.echo({ text: "x" })).args.text',
      ['--allow', '**'], { env });
    check(stdio.value === 'x', 'lazylibs: a stdio server needs no libcurl', stdio);
    const m = await run(['mcp', '--http', '127.0.0.1:0'], { env, timeoutMs: 20000 });
    check(m.code !== 0 && /libmicrohttpd\.so\.12 has no function MHD_start_daemon/.test(m.stderr),
      'lazylibs: capsa mcp --http without libmicrohttpd stops with a message that names it', m);
  });

  await step('e2e: the SDK client -> capsa mcp --mcp-config -> server-everything', async () => {
    const dir = tempDir();
    const cfg = config({
      everything: { command: node, args: [pkg('server-everything'), 'stdio'] },
      memory: { command: node, args: [pkg('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'm.jsonl') } },
    });
    const audit = join(dir, 'audit.jsonl');
    const transport = new sdk.StdioClientTransport({ command: capsa,
      args: ['mcp', '--mcp-config', cfg, '--allow', 'everything.echo', '--allow', 'everything.get_sum', '--allow', 'memory.read_graph',
        '--audit', audit], stderr: 'pipe' });
    let stderr = '';
    transport.stderr.on('data', (d) => { stderr += d; });
    const client = new sdk.Client({ name: 'capsa-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const d = tools[0].description;
      check(tools.length === 1 && d.includes('declare function everything_echo(args: EverythingEchoArgs)'),
        'e2e: execute declares the granted upstream tools', d.slice(0, 400));
      check(!d.includes('everything_get_env'), 'e2e: an ungranted upstream tool is not declared', d.length);
      const r = await client.callTool({ name: 'execute', arguments: { code: `
        const [e, sums, g] = await Promise.all([tools.everything.echo({ message: 'e2e' }),
          Promise.all([1, 2, 3].map(i => tools.everything.get_sum({ a: i, b: 100 }))), tools.memory.read_graph({})]);
        let denied = null;
        try { await tools.everything.get_env({}); } catch (err) { denied = err.code; }
        return { e, sums: sums.map(s => s.match(/is (\\d+)/)[1]), g: g.entities.length, denied }` } });
      const v = r.structuredContent && r.structuredContent.result;
      check(!r.isError && v && v.e === 'Echo: e2e' && JSON.stringify(v.sums) === '["101","102","103"]' && v.g === 0,
        'e2e: one execute call made several upstream calls', r.structuredContent);
      check(v && v.denied === 'permission_denied', 'e2e: the policy still refuses an ungranted upstream tool', v);
      check(r.structuredContent.tool_calls === 6, 'e2e: six tool calls counted', r.structuredContent.tool_calls);
      const lines = readFileSync(audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.event === 'tool_call');
      check(lines.length === 6 && lines.filter((l) => l.decision === 'allowed').length === 5 && lines.every((l) => l.session),
        'e2e: every upstream call is in the audit, with its session', lines.map((l) => `${l.tool}:${l.decision}`));
    } finally {
      await client.close();
    }
    check(!/Sanitizer|runtime error|trap/.test(stderr), 'e2e: capsa mcp wrote no crash', stderr);
  });
}

async function e2eFakeSuite() {
  await step('e2e: capsa mcp --mcp-config with a server whose list changes, --expose-tools', async () => {
    const log = join(tempDir(), 'fake.log');
    const transport = new sdk.StdioClientTransport({ command: capsa,
      args: ['mcp', '--mcp-config', config({ fake: fakeServer(log) }), '--allow', '**', '--expose-tools'], stderr: 'pipe' });
    const client = new sdk.Client({ name: 'capsa-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const exposed = tools.find((t) => t.name === 'fake_echo');
      check(exposed && exposed.inputSchema.properties.text, 'e2e: --expose-tools lists an upstream tool with its schema', tools.map((t) => t.name));
      const e = await client.callTool({ name: 'fake_echo', arguments: { text: 'exposed' } });
      check(!e.isError && JSON.stringify(e.structuredContent || e.content).includes('exposed'), 'e2e: and calls it through the sandbox', e);
      const a = await client.callTool({ name: 'execute', arguments: { code: 'return await tools.fake.add_tool({ name: "in_session" })' } });
      check(a.structuredContent.result === 'added', 'e2e: a call makes the server add a tool', a.structuredContent);
      const b = await client.callTool({ name: 'execute', arguments: { code: 'return (await tools.fake.in_session({})).tool' } });
      check(b.structuredContent.result === 'in_session', 'e2e: the next execute call has the new tool', b.structuredContent);
    } finally {
      await client.close();
    }
    const pids = [...new Set(readLog(log).map((e) => e.pid))];
    check(pids.length === 1 && !alive(pids[0]), 'e2e: the server, started once, is gone when capsa mcp ends', pids);
  });
}

// capsa serve --http ... --mcp-config: resolves to { child, port, stderr() } once it
// says where it serves.
function startServe(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(capsa, ['serve', '--http', '127.0.0.1:0', ...args]);
    let err = '';
    const t = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`capsa serve did not start: ${err}`)); }, 30000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = /serving http:\/\/127\.0\.0\.1:(\d+) /.exec(err);
      if (m) { clearTimeout(t); resolve({ child, port: Number(m[1]), stderr: () => err }); }
    });
    child.on('close', () => { clearTimeout(t); reject(new Error(`capsa serve ended: ${err}`)); });
  });
}

async function post(port, path, body) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json().catch(() => null) };
}

async function stopServe(s) {
  const gone = new Promise((resolve) => s.child.on('close', resolve));
  s.child.kill('SIGTERM');
  await gone;
}

async function serveSuite() {
  const everything = { command: node, args: [pkg('server-everything'), 'stdio'] };
  await step('serve: capsa serve --mcp-config, a session on two replicas of one store', async () => {
    const cfg = config({ everything });
    const store = `dir:${tempDir()}`;
    const args = ['--store', store, '--mcp-config', cfg, '--allow', 'everything.echo'];
    const a = await startServe(args);
    let b = null;
    try {
      const made = await post(a.port, '/v1/sessions', {});
      const id = made.body && made.body.id;
      check(made.status === 201 && id, 'serve: a session is made', made);
      const one = await post(a.port, `/v1/sessions/${id}/run`,
        { code: "globalThis.n = 1; return await tools.everything.echo({ message: 'one' })" });
      check(one.status === 200 && one.body.result === 'Echo: one', 'serve: a run calls an upstream tool', one.body);
      const denied = await post(a.port, `/v1/sessions/${id}/run`,
        { code: "try { await tools.everything.get_sum({ a: 1, b: 2 }); return 'called' } catch (e) { return e.code }" });
      check(denied.body && denied.body.result === 'permission_denied', 'serve: the policy refuses an ungranted upstream tool', denied.body);
      b = await startServe(args);
      const two = await post(b.port, `/v1/sessions/${id}/run`,
        { code: "return [n, await tools.everything.echo({ message: 'two' })]" });
      check(two.status === 200 && JSON.stringify(two.body.result) === '[1,"Echo: two"]',
        'serve: another replica loads the session with its upstream tools', two.body);
      const audit = (two.body.audit || []).filter((l) => l.event === 'tool_call').map((l) => `${l.tool}:${l.decision}`);
      check(JSON.stringify(audit) === '["everything.echo:allowed"]', 'serve: the upstream call is audited', two.body.audit);
    } finally {
      await stopServe(a);
      if (b) await stopServe(b);
    }
  });
  await step('serve: a bad --mcp-config', async () => {
    const r = await run(['serve', '--http', '127.0.0.1:0', '--mcp-config', join(tempDir(), 'missing.json')]);
    check(r.code === 2 && /--mcp-config: cannot read/.test(r.stderr), 'serve: a missing file is a configuration error', r);
  });
}

const which = process.argv.slice(2);
const all = which.length === 0;
if (all || which.includes('fake')) await fakeSuite();
if (all || which.includes('config')) await configSuite();
if (all || which.includes('real')) await realSuite();
if (all || which.includes('http')) {
  await httpSuite();
  await fakeHttpSuite();
}
if (all || which.includes('e2e')) {
  await e2eSuite();
  await e2eFakeSuite();
}
if (all || which.includes('serve')) await serveSuite();
process.exitCode = summary() ? 1 : 0;
