// capsa guest runtime: the host's tools as async functions. Evaluated once per context
// as a global script, after fs.js; its completion value { makeError, argError, refresh,
// command } (command: the shell's `tool`)
// is for guest/tools.c. Nothing here reaches the host but through __capsaTools.call and
// the functions of __capsaTools.bind (natives of guest/tools.c, which keep the calls in
// flight), which hand the host a tool name and the JSON text of the arguments; the host
// decides every
// call itself (the registry, strict JSON, the capability policy), so nothing in this
// file is a security boundary: a script that rewrites it only hurts itself.
//
// Two forms of every tool, built from the host's registry at the start of each run in
// which it changed:
//   await tools.github.search_issues({ q: 'x' })   namespaced: the name split on '.'
//   await github_search_issues({ q: 'x' })          flat: '.' and '-' become _
// (the host's names are canonical: a tool registered as "a/b" is "a.b"; tools.call,
// tools.describe and the shell's `tool` take either separator).
// plus tools.list(), tools.describe(name) and tools.call(name, args) (args may also be
// JSON text, sent as it is). A flat name that
// is already a global (console, fetch, ...) is not defined; a namespace that would be
// list, describe or call is left out of `tools` (the flat form and tools.call remain).
// A failed call rejects with a ToolError (an Error) whose code says why:
// permission_denied, unknown_tool, invalid_arguments, invalid_result, result_too_large,
// timeout, tool_error, resource_exhausted, cancelled, audit_unavailable, or the tool's own.

(function () {
  'use strict';

  const host = globalThis.__capsaTools;
  delete globalThis.__capsaTools;
  const { call: hostCall, bind: hostBind } = host;

  const {
    defineProperty, getOwnPropertyDescriptor, freeze, keys: objectKeys,
  } = Object;
  const isArray = Array.isArray;
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const promiseReject = Promise.reject.bind(Promise);
  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const mapGet = uncurry(Map.prototype.get);
  const mapSet = uncurry(Map.prototype.set);
  const mapHas = uncurry(Map.prototype.has);
  const stringSplit = uncurry(String.prototype.split);
  const stringReplace = uncurry(String.prototype.replace);
  const TypeErrorCtor = TypeError;

  // What a failed tool call rejects with. Its stack is empty: the frames of this file
  // would say nothing about the script (the call's outcome arrives later, from the host).
  class ToolError extends Error {
    constructor(message, code, tool) {
      super(message);
      defineProperty(this, 'code', { value: code, writable: true, configurable: true,
        enumerable: true });
      defineProperty(this, 'tool', { value: tool, writable: true, configurable: true,
        enumerable: true });
      defineProperty(this, 'stack', { value: '', writable: true, configurable: true,
        enumerable: false });
    }
  }
  defineProperty(ToolError.prototype, 'name', { value: 'ToolError', writable: true,
    configurable: true, enumerable: false });

  // For guest/tools.c: the errors of failed calls and of bad arguments.
  function makeError(code, message, tool) {
    return new ToolError(message, code, tool);
  }

  function argError(name, args) {
    const err = new TypeErrorCtor(
      `The arguments of tool '${name}' must be an object (got ${args === null ? 'null' :
        isArray(args) ? 'an array' : typeof args})`);
    err.code = 'invalid_arguments';
    return err;
  }

  // tools.call: the tool's name, and an object or JSON text as its arguments.
  function invoke(name, args) {
    let text;
    if (typeof args === 'string') {
      text = args; // JSON text as it is, checked by the host
    } else if (args === undefined) {
      text = '{}';
    } else if (args === null || typeof args !== 'object' || isArray(args)) {
      return promiseReject(argError(name, args));
    } else {
      try {
        text = jsonStringify(args);
      } catch (e) {
        return promiseReject(e);
      }
    }
    return hostCall(name, text);
  }

  // ---------------------------------------------------------------------------
  // The registry: `tools` and the flat functions
  // ---------------------------------------------------------------------------

  let entries = new Map(); // registered name and flat name -> entry
  let list = [];           // entries in registration order
  let defined = [];        // [flat, fn] put on globalThis by the last refresh
  const reserved = { __proto__: null, list: true, describe: true, call: true };

  const hidden = (value) => ({ value, writable: false, configurable: false,
    enumerable: false });
  const shown = (value) => ({ value, writable: false, configurable: false,
    enumerable: true });

  function copyEntry(e) {
    return {
      name: e.name,
      flat: e.flat,
      description: e.description,
      parameters: jsonParse(e.parameters),
      types: `/tools/${e.name}.d.ts`,
    };
  }

  function listTools() {
    const out = [];
    for (let i = 0; i < list.length; i++) {
      out[out.length] = { name: list[i].name, description: list[i].description };
    }
    return out;
  }

  // The entry of a name given with either separator ('/' is '.': the host's
  // canonical names use '.') or by its flat name.
  function find(name) {
    return mapGet(entries, stringReplace(`${name}`, /\//g, '.'));
  }

  function describeTool(name) {
    const e = find(name);
    return e === undefined ? undefined : copyEntry(e);
  }

  // tools.call(name, args): args an object, or JSON text sent as it is (numbers
  // beyond a double's precision keep their digits).
  function callTool(name, args) {
    return invoke(`${name}`, args);
  }

  // A tool's function is native (guest/tools.c): the arguments as JSON, the call, its
  // promise, with nothing in between.
  function makeFunction(name, flat) {
    const fn = hostBind(name);
    defineProperty(fn, 'name', { value: flat, configurable: true });
    defineProperty(fn, 'length', { value: 1, configurable: true });
    return fn;
  }

  // Turns a tree node { fn, children } into the object scripts see, frozen.
  function materialize(node) {
    const obj = node.fn !== undefined ? node.fn : {};
    for (const key of objectKeys(node.children)) {
      defineProperty(obj, key, shown(materialize(node.children[key])));
    }
    return freeze(obj);
  }

  function refresh(text) {
    const items = jsonParse(text);
    for (let i = 0; i < defined.length; i++) {
      const d = getOwnPropertyDescriptor(globalThis, defined[i][0]);
      if (d !== undefined && d.value === defined[i][1]) delete globalThis[defined[i][0]];
    }
    defined = [];
    entries = new Map();
    list = [];
    const root = { fn: undefined, children: { __proto__: null } };
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      const e = {
        name: it.name,
        flat: it.flat,
        description: it.description,
        parameters: jsonStringify(it.parameters),
      };
      const fn = makeFunction(e.name, e.flat);
      list[list.length] = e;
      mapSet(entries, e.name, e);
      if (!mapHas(entries, e.flat)) mapSet(entries, e.flat, e);
      const segs = stringSplit(e.name, /[./:]/);
      if (!reserved[segs[0]]) {
        let node = root;
        for (let k = 0; k < segs.length; k++) {
          let child = node.children[segs[k]];
          if (child === undefined) {
            child = { fn: undefined, children: { __proto__: null } };
            node.children[segs[k]] = child;
          }
          node = child;
        }
        node.fn = fn;
      }
      if (!(e.flat in globalThis)) {
        defineProperty(globalThis, e.flat, { value: fn, writable: true, configurable: true,
          enumerable: false });
        defined[defined.length] = [e.flat, fn];
      }
    }
    const tools = {};
    defineProperty(tools, 'list', hidden(listTools));
    defineProperty(tools, 'describe', hidden(describeTool));
    defineProperty(tools, 'call', hidden(callTool));
    for (const key of objectKeys(root.children)) {
      defineProperty(tools, key, shown(materialize(root.children[key])));
    }
    defineProperty(globalThis, 'tools', { value: freeze(tools), writable: false,
      configurable: true, enumerable: false });
  }

  // ---------------------------------------------------------------------------
  // The shell's `tool` command (guest/bridge.c awaits it)
  // ---------------------------------------------------------------------------

  const usage = 'usage: tool --list | tool --help NAME | tool NAME [--PARAM VALUE]... | ' +
    'tool NAME --json JSON\n';

  function typeName(p) {
    if (p === null || typeof p !== 'object') return 'value';
    if (typeof p.type === 'string') return p.type;
    if (isArray(p.type)) return p.type.join('|');
    if (isArray(p.enum)) return 'enum';
    return 'value';
  }

  // One --PARAM value typed by the schema's property p: a string stays a string.
  function typed(name, p, text) {
    const t = p !== null && typeof p === 'object' ? p.type : undefined;
    if (t === 'string' || t === undefined) return text;
    if (t === 'integer' || t === 'number') {
      const n = text.trim() === '' ? NaN : Number(text);
      if (n !== n) throw new TypeErrorCtor(`--${name}: expected a number, got '${text}'`);
      return n;
    }
    if (t === 'boolean') {
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw new TypeErrorCtor(`--${name}: expected true or false, got '${text}'`);
    }
    if (t === 'null') return null;
    try {
      return jsonParse(text);
    } catch (e) {
      throw new TypeErrorCtor(`--${name}: expected JSON (${typeName(p)}), got '${text}'`);
    }
  }

  function help(e) {
    let schema;
    try { schema = jsonParse(e.parameters); } catch (err) { schema = {}; }
    const props = schema !== null && typeof schema === 'object' &&
      schema.properties !== null && typeof schema.properties === 'object' ? schema.properties : {};
    const required = schema !== null && typeof schema === 'object' && isArray(schema.required) ?
      schema.required : [];
    let out = `${e.name}: ${e.description}\nusage: tool ${e.name}`;
    const names = objectKeys(props);
    for (const k of names) out += required.includes(k) ? ` --${k} ${typeName(props[k])}` : '';
    out += names.some((k) => !required.includes(k)) ? ' [options]\n' : '\n';
    for (const k of names) {
      const p = props[k] !== null && typeof props[k] === 'object' ? props[k] : {};
      out += `  --${k} ${typeName(p)}${required.includes(k) ? ' (required)' : ''}` +
        `${typeof p.description === 'string' ? `  ${p.description}` : ''}\n`;
    }
    return `${out}types: /tools/${e.name}.d.ts\n`;
  }

  // argv: the command's arguments after "tool". Resolves to { out, err, status }.
  async function command(argv) {
    if (argv.length === 0) return { out: '', err: usage, status: 2 };
    const first = argv[0];
    if (first === '--list' || first === '-l') {
      let out = '';
      for (const e of list) out += `${e.name}\t${e.description}\n`;
      return { out, err: '', status: 0 };
    }
    if (first === '--help' || first === '-h') {
      if (argv.length < 2) return { out: usage, err: '', status: 0 };
      const e = find(argv[1]);
      if (e === undefined) {
        return { out: '', err: `tool: ${argv[1]}: no such tool (tool --list shows them)\n`,
          status: 2 };
      }
      return { out: help(e), err: '', status: 0 };
    }
    const e = find(first);
    let schema = {};
    if (e !== undefined) {
      try { schema = jsonParse(e.parameters); } catch (err) { schema = {}; }
    }
    const props = schema !== null && typeof schema === 'object' &&
      schema.properties !== null && typeof schema.properties === 'object' ? schema.properties : {};
    let text;
    const args = {};
    try {
      for (let i = 1; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--json') {
          if (i + 1 >= argv.length) throw new TypeErrorCtor('--json needs a JSON object');
          text = argv[++i];
          continue;
        }
        if (a.length < 3 || a[0] !== '-' || a[1] !== '-') {
          throw new TypeErrorCtor(`unexpected argument '${a}' (parameters are --NAME VALUE)`);
        }
        let key = a.slice(2);
        let value;
        const eq = key.indexOf('=');
        if (eq >= 0) {
          value = key.slice(eq + 1);
          key = key.slice(0, eq);
        } else if (props[key] !== undefined && props[key] !== null &&
                   props[key].type === 'boolean' &&
                   (i + 1 >= argv.length || (argv[i + 1] !== 'true' && argv[i + 1] !== 'false'))) {
          value = 'true';
        } else {
          if (i + 1 >= argv.length) throw new TypeErrorCtor(`--${key} needs a value`);
          value = argv[++i];
        }
        defineProperty(args, key, { value: typed(key, props[key], value), writable: true,
          enumerable: true, configurable: true });
      }
    } catch (err) {
      return { out: '', err: `tool: ${first}: ${err.message}\n${usage}`, status: 2 };
    }
    if (text !== undefined && objectKeys(args).length > 0) {
      return { out: '', err: `tool: ${first}: --json cannot be mixed with --PARAM\n`, status: 2 };
    }
    try {
      const result = await invoke(first, text !== undefined ? text : args);
      const out = typeof result === 'string' ? result : jsonStringify(result, null, 2);
      return { out: out === undefined ? '' : `${out}\n`, err: '', status: 0 };
    } catch (err) {
      const code = err !== null && typeof err === 'object' && typeof err.code === 'string' ?
        ` (${err.code})` : '';
      return { out: '', err: `tool: ${first}: ${err && err.message}${code}\n`, status: 1 };
    }
  }

  // Before any tool is registered, `tools` exists and is empty.
  refresh('[]');
  defineProperty(globalThis, 'ToolError', { value: ToolError, writable: true,
    configurable: true, enumerable: false });

  return freeze({ makeError, argError, refresh, command });
})();
