// capsa guest runtime: Node's `fs` over the sandbox's filesystem, the module system
// (require() of the built-in modules and of CommonJS files, and the helpers of the ES
// module loader in guest/fs.c). Evaluated once per context as a global script, after
// node.js; its completion value { fs, moduleError, importMeta, builtins, loadCommonJS,
// resolvePackage } is for fs.c. Nothing here reaches the host but through the natives of __capsaFs
// (whole-file reads and writes, directories, links, stats, compiling modules).
//
// The filesystem: `/` read-only, `/workspace` read-write (the working directory),
// `/tmp` read-write, `/tools` read-only, `/log` append-only (files there can be read and
// appended to, never created, truncated, renamed or removed: EPERM).
//
// Behaviour follows Node.js v20 (messages, codes, errno values of Linux). Where it differs:
// - fs.readFile, fs.writeFile and the other asynchronous functions call back when their
//   last argument is a function, as Node's do, and otherwise return a promise (Node
//   throws without a callback). fs.exists(path) resolves to a boolean, and
//   fs.promises.exists too (Node has neither promise). The work itself is synchronous.
// - File descriptors (fs.open, fs.read, streams, watchers) are not available: a path is
//   a string, a Uint8Array or a file: URL.
// - Relative paths resolve against /workspace. A ".." above "/" stays at "/", as POSIX
//   has it ("/workspace/../../etc" is "/etc"); WASI itself would refuse the path.
// - A path that WASI will not let the guest reach (ENOTCAPABLE) is reported as EACCES;
//   a write over the quota of the largest file is EDQUOT ("disk quota exceeded"), of the
//   whole filesystem ENOSPC.
// - Stats: mode holds the type and 0o644 (files), 0o755 (directories) or 0o777 (links)
//   whatever the mount allows; uid and gid are 0; birthtime is ctime; a directory's size
//   is its number of entries; blocks count 4 KiB blocks as ext4 allocates them.
//   fs.access checks existence only, not the mode.
// - Modules are cached by path for the life of the sandbox, as in a Node process:
//   importing or requiring a file again after changing it gives the module first loaded.
// - Modules: ".mjs" files are ES modules, ".cjs" files CommonJS, and a ".js" file is
//   CommonJS unless it has ES module syntax (import, export, import.meta), as Node 22
//   decides; no package.json "type" is read. require() of an ES module gives its
//   namespace (Node 22's require(esm); Node 20 throws ERR_REQUIRE_ESM). A CommonJS
//   module that an ES module imports runs when the importer is linked, before the
//   importer's other imports run; its named exports are its module.exports' own
//   enumerable keys at that moment. require() resolves files as Node does (".js",
//   ".json", directories with package.json "main" or index.js, node_modules, a
//   package's "exports" for "require"/"node"/"default"); import finds packages in
//   node_modules too ("exports" for "import"/"node"/"default", else "main"), but not
//   directories by path (Node's ERR_UNSUPPORTED_DIR_IMPORT).
// - Standard input: fs.readFileSync(0) (and '/dev/stdin') reads all of it; process.stdin
//   is a readable stream of its own (data/end/close/error/readable events, pause,
//   resume, setEncoding, read, pipe, async iteration), not a net.Socket. A read waits
//   for the host's bytes, so timers do not fire while it waits; a terminal reads as
//   empty (a sandboxed script is not interactive) and sets isTTY.
// - "use strip": its functions show in stack traces as "(native)", where Node shows
//   its internal node:fs frames, so a script's stack does not change with this file.

(function () {
  'use strict';
  'use strip';

  // ---------------------------------------------------------------------------
  // Host bridge
  // ---------------------------------------------------------------------------

  const host = globalThis.__capsaFs;
  delete globalThis.__capsaFs;
  const {
    read: hostRead, write: hostWrite, stat: hostStat, readdir: hostReaddir,
    mkdir: hostMkdir, rmdir: hostRmdir, unlink: hostUnlink, rename: hostRename,
    symlink: hostSymlink, readlink: hostReadlink, truncate: hostTruncate,
    utimes: hostUtimes, resolve: hostResolve, describe: hostDescribe,
    readStdin: hostReadStdin, stdinIsTTY: hostStdinIsTTY, stdinSource: hostStdinSource,
  } = host;
  const { inspect } = host.runtime;
  // buffer.js's Buffer, its module, and the string encodings Buffer uses.
  const { module: bufferModule, toBuffer, encode, decode } = host.buffer;
  // node.js's modules (path, util, events, ...), path and file URLs.
  const {
    modules: nodeModules, path: nodePath, fileURLToPath, pathToFileURL, scriptPath,
  } = host.node;
  const {
    compileCommonJS: hostCompileCommonJS, importModule: hostImportModule,
  } = host;

  // ---------------------------------------------------------------------------
  // Intrinsics, captured before user code can replace them
  // ---------------------------------------------------------------------------

  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const getter = (proto, name) =>
    uncurry(Object.getOwnPropertyDescriptor(proto, name).get);
  const { defineProperty, freeze, keys: objectKeys } = Object;
  const reflectApply = Reflect.apply;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const PromiseCtor = Promise;
  const promiseResolve = (v) => reflectApply(Promise.resolve, PromiseCtor, [v]);
  const promiseReject = (e) => reflectApply(Promise.reject, PromiseCtor, [e]);
  const DateCtor = Date;
  const dateGetTime = uncurry(Date.prototype.getTime);
  const dateNow = Date.now;
  const mathFloor = Math.floor;
  const mathCeil = Math.ceil;
  const mathRound = Math.round;
  const mathRandom = Math.random;
  const numberIsFinite = Number.isFinite;
  const numberIsInteger = Number.isInteger;
  const stringIncludes = uncurry(String.prototype.includes);
  const stringSlice = uncurry(String.prototype.slice);
  const stringSplit = uncurry(String.prototype.split);
  const stringLastIndexOf = uncurry(String.prototype.lastIndexOf);
  const stringToLowerCase = uncurry(String.prototype.toLowerCase);
  const stringReplace = uncurry(String.prototype.replace);
  const stringStartsWith = uncurry(String.prototype.startsWith);
  const stringEndsWith = uncurry(String.prototype.endsWith);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const stringCharCodeAt = uncurry(String.prototype.charCodeAt);
  const arraySort = uncurry(Array.prototype.sort);
  const isArray = Array.isArray;
  const JSONParse = JSON.parse;
  const SyntaxErrorCtor = SyntaxError;
  const arrayPush = uncurry(Array.prototype.push);
  const arrayPop = uncurry(Array.prototype.pop);
  const arrayShift = uncurry(Array.prototype.shift);
  const reflectOwnKeys = Reflect.ownKeys;
  const arrayJoin = uncurry(Array.prototype.join);
  const arraySlice = uncurry(Array.prototype.slice);
  const arrayConcat = uncurry(Array.prototype.concat);
  const arrayIncludes = uncurry(Array.prototype.includes);
  const Uint8ArrayCtor = Uint8Array;
  const isView = ArrayBuffer.isView;
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const typedArrayBuffer = getter(TypedArrayPrototype, 'buffer');
  const typedArrayByteOffset = getter(TypedArrayPrototype, 'byteOffset');
  const typedArrayByteLength = getter(TypedArrayPrototype, 'byteLength');
  const dataViewBuffer = getter(DataView.prototype, 'buffer');
  const dataViewByteOffset = getter(DataView.prototype, 'byteOffset');
  const dataViewByteLength = getter(DataView.prototype, 'byteLength');
  const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const decoderDecode = uncurry(TextDecoder.prototype.decode);
  const utf8Encoder = new TextEncoder();
  const encoderEncode = uncurry(TextEncoder.prototype.encode);
  const decodeURIComponentFn = decodeURIComponent;
  const encodeURIFn = encodeURI;
  const setImmediateFn = setImmediate;

  const { isArrayBuffer, isDataView, isUint8Array } = host.web;
  const decodeUtf8 = (bytes) => decoderDecode(utf8Decoder, bytes);

  // ---------------------------------------------------------------------------
  // Errors
  // ---------------------------------------------------------------------------

  // Node's error shapes, shared with web.js.
  const { nodeError, describeReceived } = host.web;

  const invalidArgType = (name, expected, value) => nodeError(TypeErrorCtor,
    'ERR_INVALID_ARG_TYPE', `The "${name}" ${stringIncludes(name, '.') ? 'property' : 'argument'} ` +
    `must be ${expected}.${describeReceived(value)}`);
  const invalidArgValue = (name, value, reason) => {
    let shown = inspect(value);
    if (shown.length > 128) shown = `${stringSlice(shown, 0, 128)}...`;
    return nodeError(TypeErrorCtor, 'ERR_INVALID_ARG_VALUE',
      `The argument '${name}' ${reason}. Received ${shown}`);
  };

  // A native that fails returns -(phase * PHASE + errno), errno as WASI numbers it; the
  // phase says which of its system calls failed (guest/fs.c).
  const PHASE = 1000;
  const failed = (r) => typeof r === 'number';
  const phaseOf = (r) => mathFloor(-r / PHASE);
  const codeOf = (r) => hostDescribe(-r % PHASE)[0];

  // Node's error for a failed system call: "ENOENT: no such file or directory, open 'x'"
  // with errno (Linux's, negative), code, syscall, and path and dest when known.
  function uvError(r, syscall, path, dest) {
    const [code, errno, text] = hostDescribe(-r % PHASE);
    let message = `${code}: ${text}, ${syscall}`;
    if (path !== undefined) message += ` '${path}'`;
    if (dest !== undefined) message += ` -> '${dest}'`;
    const err = new ErrorCtor(message);
    err.errno = errno;
    err.code = code;
    err.syscall = syscall;
    if (path !== undefined) err.path = path;
    if (dest !== undefined) err.dest = dest;
    return err;
  }

  // Node's SystemError, for rm on a directory without `recursive`.
  class SystemError extends ErrorCtor {}
  defineProperty(SystemError.prototype, 'name', {
    value: 'SystemError', writable: true, enumerable: false, configurable: true,
  });

  function rmIsDirectory(path) {
    const err = new SystemError(
      `Path is a directory: rm returned EISDIR (is a directory) ${path}`);
    err.code = 'ERR_FS_EISDIR';
    err.info = { code: 'EISDIR', message: 'is a directory', path, syscall: 'rm', errno: 21 };
    err.errno = 21;
    err.syscall = 'rm';
    err.path = path;
    return err;
  }

  // ---------------------------------------------------------------------------
  // Arguments
  // ---------------------------------------------------------------------------

  // A path argument as a string: a string, the UTF-8 of a Uint8Array, or a file: URL.
  function toPath(value, name) {
    if (typeof value !== 'string') {
      if (isUint8Array(value)) {
        value = decodeUtf8(value);
      } else if (value !== null && typeof value === 'object' &&
                 typeof value.href === 'string' && typeof value.protocol === 'string') {
        value = fileURLToPath(value);
      } else {
        throw invalidArgType(name, 'of type string or an instance of Buffer or URL', value);
      }
    }
    if (stringIncludes(value, '\u0000')) {
      throw invalidArgValue(name, value,
        'must be a string, Uint8Array, or URL without null bytes');
    }
    return value;
  }

  const encodings = {
    __proto__: null, utf8: 'utf8', 'utf-8': 'utf8', latin1: 'latin1', binary: 'latin1',
    ascii: 'ascii', hex: 'hex', base64: 'base64', base64url: 'base64url', ucs2: 'utf16le',
    'ucs-2': 'utf16le', utf16le: 'utf16le', 'utf-16le': 'utf16le', buffer: 'buffer',
  };

  // The encoding named by an options argument (a string or { encoding }), or `fallback`.
  function getEncoding(options, fallback) {
    let encoding = options;
    if (options !== null && typeof options === 'object') encoding = options.encoding;
    else if (options !== undefined && options !== null && typeof options !== 'string') {
      throw invalidArgType('options', 'one of type string or object', options);
    }
    if (encoding === undefined || encoding === null) return fallback;
    const known = typeof encoding === 'string' ?
      (encodings[encoding] || encodings[stringToLowerCase(encoding)]) : undefined;
    if (known === undefined) throw invalidArgValue('encoding', encoding, 'is invalid encoding');
    return known;
  }

  function getBoolean(options, name) {
    if (options === null || typeof options !== 'object') return false;
    const value = options[name];
    if (value === undefined) return false;
    if (typeof value !== 'boolean') {
      throw invalidArgType(`options.${name}`, 'of type boolean', value);
    }
    return value;
  }

  // The bytes of any ArrayBuffer view or ArrayBuffer, as a Uint8Array over the same memory.
  function bytesOf(data) {
    if (isView(data)) {
      if (isDataView(data)) {
        return new Uint8ArrayCtor(dataViewBuffer(data), dataViewByteOffset(data),
          dataViewByteLength(data));
      }
      return isUint8Array(data) ? data : new Uint8ArrayCtor(typedArrayBuffer(data),
        typedArrayByteOffset(data), typedArrayByteLength(data));
    }
    if (isArrayBuffer(data)) return new Uint8ArrayCtor(data);
    return undefined;
  }

  // node.js's path (POSIX) and file URLs.
  const joinPath = nodePath.join;
  const dirnamePath = nodePath.dirname;

  // ---------------------------------------------------------------------------
  // Stats and Dirent
  // ---------------------------------------------------------------------------

  const S_IFMT = 0o170000, S_IFREG = 0o100000, S_IFDIR = 0o040000, S_IFLNK = 0o120000;
  const S_IFIFO = 0o010000, S_IFSOCK = 0o140000, S_IFCHR = 0o020000, S_IFBLK = 0o060000;
  // Node's numbering of types (guest/fs.c gives them), and their mode bits.
  const TYPE_FILE = 1, TYPE_DIR = 2, TYPE_LINK = 3;
  const modeOfType = [0, S_IFREG | 0o644, S_IFDIR | 0o755, S_IFLNK | 0o777, S_IFIFO | 0o644,
    S_IFSOCK | 0o755, S_IFCHR | 0o644, S_IFBLK | 0o644];

  class Stats {
    constructor(s) {
      // s: [type, size, atimeMs, mtimeMs, ctimeMs, ino, nlink, dev] from the native.
      this.dev = s[7];
      this.mode = modeOfType[s[0]] || 0;
      this.nlink = s[6];
      this.uid = 0;
      this.gid = 0;
      this.rdev = 0;
      this.blksize = 4096;
      this.ino = s[5];
      this.size = s[1];
      this.blocks = mathCeil(s[1] / 4096) * 8; // 512-byte units, in 4 KiB blocks
      this.atimeMs = s[2];
      this.mtimeMs = s[3];
      this.ctimeMs = s[4];
      this.birthtimeMs = s[4];
      // Rounded to the millisecond, as Node's dateFromMs.
      this.atime = new DateCtor(mathRound(s[2]));
      this.mtime = new DateCtor(mathRound(s[3]));
      this.ctime = new DateCtor(mathRound(s[4]));
      this.birthtime = new DateCtor(mathRound(s[4]));
    }
    isDirectory() { return (this.mode & S_IFMT) === S_IFDIR; }
    isFile() { return (this.mode & S_IFMT) === S_IFREG; }
    isBlockDevice() { return (this.mode & S_IFMT) === S_IFBLK; }
    isCharacterDevice() { return (this.mode & S_IFMT) === S_IFCHR; }
    isSymbolicLink() { return (this.mode & S_IFMT) === S_IFLNK; }
    isFIFO() { return (this.mode & S_IFMT) === S_IFIFO; }
    isSocket() { return (this.mode & S_IFMT) === S_IFSOCK; }
  }

  const kType = Symbol('type');

  class Dirent {
    constructor(name, type, path) {
      this.name = name;
      this.parentPath = path;
      this.path = path;
      this[kType] = type;
    }
    isDirectory() { return this[kType] === TYPE_DIR; }
    isFile() { return this[kType] === TYPE_FILE; }
    isBlockDevice() { return this[kType] === 7; }
    isCharacterDevice() { return this[kType] === 6; }
    isSymbolicLink() { return this[kType] === TYPE_LINK; }
    isFIFO() { return this[kType] === 4; }
    isSocket() { return this[kType] === 5; }
  }

  // ---------------------------------------------------------------------------
  // The synchronous functions
  // ---------------------------------------------------------------------------

  function readFileSync(path, options) {
    if (path === 0) return readStdinSync(options);
    path = toPath(path, 'path');
    if (path === '/dev/stdin' || path === '/dev/fd/0') return readStdinSync(options);
    const encoding = getEncoding(options, 'buffer');
    const r = hostRead(path);
    if (failed(r)) {
      const phase = phaseOf(r);
      throw phase === 0 ? uvError(r, 'open', path) : uvError(r, phase === 1 ? 'read' : 'fstat');
    }
    const bytes = toBuffer(r);
    return encoding === 'buffer' ? bytes : decode(bytes, encoding);
  }

  const WRITE_APPEND = 1, WRITE_EXCL = 2;
  const writeFlags = {
    __proto__: null, w: 0, 'w+': 0, wx: WRITE_EXCL, xw: WRITE_EXCL, 'wx+': WRITE_EXCL,
    'xw+': WRITE_EXCL, a: WRITE_APPEND, 'a+': WRITE_APPEND, as: WRITE_APPEND,
    'as+': WRITE_APPEND, ax: WRITE_APPEND | WRITE_EXCL, xa: WRITE_APPEND | WRITE_EXCL,
    'ax+': WRITE_APPEND | WRITE_EXCL, 'xa+': WRITE_APPEND | WRITE_EXCL,
  };

  function writeData(path, data, options, defaultFlag) {
    path = toPath(path, 'path');
    const encoding = getEncoding(options, 'utf8');
    let flag = defaultFlag;
    if (options !== null && typeof options === 'object' && options.flag !== undefined) {
      flag = options.flag;
    }
    const flags = typeof flag === 'string' ? writeFlags[flag] : undefined;
    if (flags === undefined) throw invalidArgValue('flags', flag, 'is invalid');
    let payload;
    if (typeof data === 'string') {
      payload = encoding === 'utf8' || encoding === 'buffer' ? data : encode(data, encoding);
    } else {
      payload = bytesOf(data);
      if (payload === undefined) {
        throw invalidArgType('data',
          'of type string or an instance of Buffer, TypedArray, or DataView', data);
      }
    }
    const r = hostWrite(path, payload, flags);
    if (failed(r)) throw phaseOf(r) === 0 ? uvError(r, 'open', path) : uvError(r, 'write');
  }

  function writeFileSync(path, data, options) {
    writeData(path, data, options, 'w');
  }

  function appendFileSync(path, data, options) {
    writeData(path, data, options, 'a');
  }

  function existsSync(path) {
    try {
      path = toPath(path, 'path');
    } catch {
      return false;
    }
    return !failed(hostStat(path, true));
  }

  function statWith(follow, syscall, path, options) {
    path = toPath(path, 'path');
    const r = hostStat(path, follow);
    if (failed(r)) {
      if (options !== null && typeof options === 'object' && options.throwIfNoEntry === false &&
          codeOf(r) === 'ENOENT') {
        return undefined;
      }
      throw uvError(r, syscall, path);
    }
    return new Stats(r);
  }

  function statSync(path, options) {
    return statWith(true, 'stat', path, options);
  }

  function lstatSync(path, options) {
    return statWith(false, 'lstat', path, options);
  }

  function accessSync(path, mode) {
    path = toPath(path, 'path');
    const r = hostStat(path, true);
    if (failed(r)) throw uvError(r, 'access', path);
  }

  // The entries of a directory: [name, type, ...]; a type the listing did not give is
  // asked of lstat.
  function listDirectory(path) {
    const r = hostReaddir(path);
    if (failed(r)) throw uvError(r, 'scandir', path);
    for (let i = 1; i < r.length; i += 2) {
      if (r[i] === 0) {
        const s = hostStat(joinPath(path, r[i - 1]), false);
        if (!failed(s)) r[i] = s[0];
      }
    }
    return r;
  }

  const nameIn = (name, encoding) =>
    encoding === 'buffer' ? encode(name, 'utf8') :
      encoding === 'utf8' ? name : decode(encoderEncode(utf8Encoder, name), encoding);

  function readdirSync(path, options) {
    path = toPath(path, 'path');
    const encoding = getEncoding(options, 'utf8');
    const withFileTypes = getBoolean(options, 'withFileTypes');
    const recursive = getBoolean(options, 'recursive');
    const out = [];
    // Breadth first, as Node lists recursively: [directory as given, path relative to the
    // first one].
    const queue = [[path, '']];
    for (let q = 0; q < queue.length; q++) {
      const [dir, relative] = queue[q];
      const entries = listDirectory(dir);
      for (let i = 0; i < entries.length; i += 2) {
        const name = entries[i];
        let type = entries[i + 1];
        if (withFileTypes) {
          arrayPush(out, new Dirent(nameIn(name, encoding), type, dir));
        } else {
          arrayPush(out, nameIn(relative === '' ? name : `${relative}/${name}`, encoding));
          if (recursive && type === TYPE_LINK) {
            // Without file types Node follows links to directories.
            const s = hostStat(joinPath(dir, name), true);
            type = failed(s) ? 0 : s[0];
          }
        }
        if (recursive && type === TYPE_DIR) {
          arrayPush(queue, [joinPath(dir, name), relative === '' ? name : `${relative}/${name}`]);
        }
      }
    }
    return out;
  }

  function isDirectory(path) {
    const s = hostStat(path, true);
    return !failed(s) && s[0] === TYPE_DIR;
  }

  // mkdir -p: the first directory it created, named from `path` as given, or undefined.
  function mkdirp(path, given) {
    let r = hostMkdir(path);
    if (!failed(r)) return path;
    let first;
    if (codeOf(r) === 'ENOENT') {
      const parent = dirnamePath(path);
      if (parent !== path) {
        first = mkdirp(parent, given);
        r = hostMkdir(path);
        if (!failed(r)) return first === undefined ? path : first;
      }
    }
    if (isDirectory(path)) return first;
    throw uvError(r, 'mkdir', given);
  }

  function mkdirSync(path, options) {
    path = toPath(path, 'path');
    if (options !== undefined && options !== null && typeof options !== 'object' &&
        typeof options !== 'number' && typeof options !== 'string') {
      throw invalidArgType('options', 'of type object', options);
    }
    if (getBoolean(options, 'recursive')) return mkdirp(path, path);
    const r = hostMkdir(path);
    if (failed(r)) throw uvError(r, 'mkdir', path);
    return undefined;
  }

  // Removes a directory and everything in it; symlinks are removed, not followed.
  function removeTree(path) {
    const entries = listDirectory(path);
    for (let i = 0; i < entries.length; i += 2) {
      const child = joinPath(path, entries[i]);
      if (entries[i + 1] === TYPE_DIR) {
        removeTree(child);
      } else {
        const r = hostUnlink(child);
        if (failed(r)) throw uvError(r, 'unlink', child);
      }
    }
    const r = hostRmdir(path);
    if (failed(r)) throw uvError(r, 'rmdir', path);
  }

  function rmSync(path, options) {
    path = toPath(path, 'path');
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      throw invalidArgType('options', 'of type object', options);
    }
    const recursive = getBoolean(options, 'recursive');
    const force = getBoolean(options, 'force');
    const s = hostStat(path, false);
    if (failed(s)) {
      if (force && codeOf(s) === 'ENOENT') return;
      throw uvError(s, 'lstat', path);
    }
    if (s[0] === TYPE_DIR) {
      if (!recursive) throw rmIsDirectory(path);
      removeTree(path);
      return;
    }
    const r = hostUnlink(path);
    if (failed(r) && !(force && codeOf(r) === 'ENOENT')) throw uvError(r, 'unlink', path);
  }

  function rmdirSync(path, options) {
    path = toPath(path, 'path');
    if (getBoolean(options, 'recursive')) {
      const s = hostStat(path, false);
      if (failed(s)) throw uvError(s, 'lstat', path);
      if (s[0] !== TYPE_DIR) throw uvError(-54, 'rmdir', path); // ENOTDIR
      removeTree(path);
      return;
    }
    const r = hostRmdir(path);
    if (failed(r)) throw uvError(r, 'rmdir', path);
  }

  function unlinkSync(path) {
    path = toPath(path, 'path');
    const r = hostUnlink(path);
    if (failed(r)) throw uvError(r, 'unlink', path);
  }

  function renameSync(oldPath, newPath) {
    oldPath = toPath(oldPath, 'oldPath');
    newPath = toPath(newPath, 'newPath');
    const r = hostRename(oldPath, newPath);
    if (failed(r)) throw uvError(r, 'rename', oldPath, newPath);
  }

  const COPYFILE_EXCL = 1;

  function copyFileSync(src, dest, mode) {
    src = toPath(src, 'src');
    dest = toPath(dest, 'dest');
    if (mode === undefined || mode === null) mode = 0;
    if (typeof mode !== 'number') throw invalidArgType('mode', 'of type number', mode);
    if (!numberIsInteger(mode) || mode < 0 || mode > 7) {
      throw nodeError(RangeErrorCtor, 'ERR_OUT_OF_RANGE', 'mode is out of range: >= 0 && <= 7');
    }
    const data = hostRead(src);
    if (failed(data)) throw uvError(data, 'copyfile', src, dest);
    const r = hostWrite(dest, new Uint8ArrayCtor(data), mode & COPYFILE_EXCL ? WRITE_EXCL : 0);
    if (failed(r)) throw uvError(r, 'copyfile', src, dest);
  }

  function symlinkSync(target, path, type) {
    target = toPath(target, 'target');
    path = toPath(path, 'path');
    const r = hostSymlink(target, path);
    if (failed(r)) throw uvError(r, 'symlink', target, path);
  }

  function readlinkSync(path, options) {
    path = toPath(path, 'path');
    const encoding = getEncoding(options, 'utf8');
    const r = hostReadlink(path);
    if (failed(r)) throw uvError(r, 'readlink', path);
    return nameIn(r, encoding);
  }

  // The path without symlinks, ".", "..": each component is looked at with lstat and
  // links are followed (at most 40), as Node's JavaScript realpath does; its errors
  // name the component that failed. realpathSync.native names the path as given, as
  // realpath(3) does.
  function realpathOf(path, native) {
    const fail = (r, syscall, at) => native ? uvError(r, 'realpath', path) : uvError(r, syscall, at);
    let resolved = '/';
    let parts = stringSplit(path[0] === '/' ? path : `${hostResolve('.')}/${path}`, '/');
    let links = 0;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (part === '' || part === '.') continue;
      if (part === '..') {
        resolved = dirnamePath(resolved);
        continue;
      }
      const next = resolved === '/' ? `/${part}` : `${resolved}/${part}`;
      const s = hostStat(next, false);
      if (failed(s)) throw fail(s, 'lstat', next);
      if (s[0] !== TYPE_LINK) {
        resolved = next;
        continue;
      }
      const followed = hostStat(next, true);
      if (failed(followed)) throw fail(followed, 'stat', next);
      if (++links > 40) throw fail(-32, 'stat', next); // ELOOP
      const target = hostReadlink(next);
      if (failed(target)) throw fail(target, 'readlink', next);
      parts = arrayConcat(stringSplit(target, '/'), arraySlice(parts, i + 1));
      i = -1;
      if (target[0] === '/') resolved = '/';
    }
    return resolved;
  }

  function realpathSync(path, options) {
    path = toPath(path, 'path');
    return nameIn(realpathOf(path, false), getEncoding(options, 'utf8'));
  }

  realpathSync.native = {
    native(path, options) {
      path = toPath(path, 'path');
      return nameIn(realpathOf(path, true), getEncoding(options, 'utf8'));
    },
  }.native;

  function truncateSync(path, len) {
    path = toPath(path, 'path');
    if (len === undefined || len === null) len = 0;
    if (typeof len !== 'number') throw invalidArgType('len', 'of type number', len);
    if (!numberIsInteger(len)) {
      throw nodeError(RangeErrorCtor, 'ERR_OUT_OF_RANGE',
        `The value of "len" is out of range. It must be an integer. Received ${inspect(len)}`);
    }
    const r = hostTruncate(path, len);
    if (failed(r)) throw phaseOf(r) === 0 ? uvError(r, 'open', path) : uvError(r, 'ftruncate');
  }

  // Seconds since the epoch, as Node's toUnixTimestamp takes them.
  function toUnixTimestamp(time, name) {
    if (typeof time === 'string' && +time == time) return +time; // eslint-disable-line eqeqeq
    if (numberIsFinite(time)) return time < 0 ? dateNow() / 1000 : time;
    if (time instanceof DateCtor) return dateGetTime(time) / 1000;
    throw invalidArgType(name, 'an instance of Date or an Time in seconds', time);
  }

  function utimesSync(path, atime, mtime) {
    path = toPath(path, 'path');
    const r = hostUtimes(path, toUnixTimestamp(atime, 'time'), toUnixTimestamp(mtime, 'time'));
    if (failed(r)) throw uvError(r, 'utime', path);
  }

  const tempChars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

  function mkdtempSync(prefix, options) {
    prefix = toPath(prefix, 'prefix');
    const encoding = getEncoding(options, 'utf8');
    for (let attempt = 0; ; attempt++) {
      let path = prefix;
      for (let i = 0; i < 6; i++) path += tempChars[mathFloor(mathRandom() * 62)];
      const r = hostMkdir(path);
      if (!failed(r)) return nameIn(path, encoding);
      if (codeOf(r) !== 'EEXIST' || attempt === 100) {
        throw uvError(r, 'mkdtemp', `${prefix}XXXXXX`);
      }
    }
  }

  // ---------------------------------------------------------------------------
  // The asynchronous functions
  // ---------------------------------------------------------------------------

  // The promise form of a synchronous function: rejects with what it throws.
  function promiseForm(name, sync) {
    const fn = {
      [name](...args) {
        try {
          return promiseResolve(reflectApply(sync, undefined, args));
        } catch (err) {
          return promiseReject(err);
        }
      },
    }[name];
    return fn;
  }

  // Node's callback form when the last argument is a function (called back from an
  // immediate, with (err) or (null, result)), else the promise form.
  function callbackForm(name, sync) {
    const fn = {
      [name](...args) {
        const callback = args.length > 0 ? args[args.length - 1] : undefined;
        if (typeof callback !== 'function') {
          try {
            return promiseResolve(reflectApply(sync, undefined, args));
          } catch (err) {
            return promiseReject(err);
          }
        }
        let result, error = null;
        try {
          result = reflectApply(sync, undefined, arraySlice(args, 0, args.length - 1));
        } catch (err) {
          error = err;
        }
        if (error !== null) setImmediateFn(() => { callback(error); });
        else if (result === undefined) setImmediateFn(() => { callback(null); });
        else setImmediateFn(() => { callback(null, result); });
        return undefined;
      },
    }[name];
    return fn;
  }

  const syncFunctions = {
    access: accessSync, appendFile: appendFileSync, copyFile: copyFileSync,
    exists: existsSync, lstat: lstatSync, mkdir: mkdirSync, mkdtemp: mkdtempSync,
    readdir: readdirSync, readFile: readFileSync, readlink: readlinkSync,
    realpath: realpathSync, rename: renameSync, rm: rmSync, rmdir: rmdirSync,
    stat: statSync, symlink: symlinkSync, truncate: truncateSync, unlink: unlinkSync,
    utimes: utimesSync, writeFile: writeFileSync,
  };

  const constants = freeze({
    __proto__: null,
    F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, COPYFILE_EXCL: 1, COPYFILE_FICLONE: 2,
    COPYFILE_FICLONE_FORCE: 4, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64,
    O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024, O_DIRECTORY: 65536, O_NOFOLLOW: 131072,
    S_IFMT, S_IFREG, S_IFDIR, S_IFCHR, S_IFBLK, S_IFIFO, S_IFLNK, S_IFSOCK,
  });

  const promises = { constants };
  const fs = {};
  const names = objectKeys(syncFunctions);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const sync = syncFunctions[name];
    promises[name] = promiseForm(name, sync);
    fs[name] = callbackForm(name, sync);
    fs[`${name}Sync`] = sync;
  }
  // fs.exists(path, callback) calls back with a boolean only, as Node's.
  fs.exists = {
    exists(path, callback) {
      if (typeof callback !== 'function') return promiseResolve(existsSync(path));
      const result = existsSync(path);
      setImmediateFn(() => { callback(result); });
      return undefined;
    },
  }.exists;
  fs.realpath.native = callbackForm('native', realpathSync.native);
  promises.realpath.native = promiseForm('native', realpathSync.native);
  fs.constants = constants;
  fs.promises = promises;
  fs.Stats = Stats;
  fs.Dirent = Dirent;
  fs.F_OK = 0;
  fs.R_OK = 4;
  fs.W_OK = 2;
  fs.X_OK = 1;

  // ---------------------------------------------------------------------------
  // Standard input (fd 0): fs.readFileSync(0) and '/dev/stdin', and process.stdin
  // ---------------------------------------------------------------------------

  // Node's error for a failed read of standard input; past the host's limit it says so.
  function stdinError(r) {
    const err = uvError(r, 'read');
    if (err.code === 'EFBIG') {
      err.message = 'EFBIG: standard input is over the limit of what the sandbox may read, read';
    }
    return err;
  }

  // All that is left of standard input (the host ends it at once for a terminal).
  function readStdinSync(options) {
    const encoding = getEncoding(options, 'buffer');
    const r = hostReadStdin(true);
    if (failed(r)) throw stdinError(r);
    const bytes = toBuffer(r);
    return encoding === 'buffer' ? bytes : decode(bytes, encoding);
  }

  // process.stdin: a readable stream over fd 0, read a chunk (64 KiB at most) at a time
  // when the script asks for data: 'data' listeners or resume() (flowing), 'readable'
  // and read() (paused), pipe(), or `for await`. Each read waits for the host's bytes.
  function makeStdin() {
    const EventEmitter = nodeModules.events;
    const { StringDecoder } = nodeModules.string_decoder;
    const st = {
      flowing: null, ended: false, endEmitted: false, scheduled: false, destroyed: false,
      decoder: null, encoding: null, buffered: [],
    };
    class ReadStream extends EventEmitter {}
    const stream = new ReadStream();
    const decodeChunk = (buf) => (st.decoder === null ? buf : st.decoder.write(buf));
    // The next chunk from the host, or null at the end; throws a failed read's error.
    const pull = () => {
      if (st.ended) return null;
      const r = hostReadStdin(false);
      if (failed(r)) throw stdinError(r);
      if (r.byteLength === 0) {
        st.ended = true;
        return null;
      }
      return toBuffer(r);
    };
    const finish = () => {
      if (st.endEmitted) return;
      st.endEmitted = true;
      if (st.decoder !== null) {
        const rest = st.decoder.end();
        if (rest.length) stream.emit('data', rest);
      }
      stream.emit('end');
      stream.emit('close');
    };
    const fail = (err) => {
      st.destroyed = true;
      stream.emit('error', err);
      stream.emit('close');
    };
    // One step of the stream, after the script's own code has run: in flowing mode a
    // 'data' event (or the end); in paused mode a chunk kept for read() and 'readable'.
    const step = () => {
      st.scheduled = false;
      if (st.destroyed || st.endEmitted) return;
      if (st.flowing === true) {
        while (st.buffered.length && st.flowing === true) {
          const chunk = decodeChunk(arrayShift(st.buffered));
          if (chunk.length) stream.emit('data', chunk);
        }
        if (st.flowing !== true) return;
      } else if (st.buffered.length) {
        return;
      }
      let chunk;
      try {
        chunk = pull();
      } catch (err) {
        fail(err);
        return;
      }
      if (chunk === null) {
        if (st.flowing !== true) stream.emit('readable');
        finish();
        return;
      }
      if (st.flowing === true) {
        const data = decodeChunk(chunk);
        if (data.length) stream.emit('data', data);
      } else {
        arrayPush(st.buffered, chunk);
        stream.emit('readable');
        return;
      }
      schedule();
    };
    const schedule = () => {
      if (st.scheduled || st.destroyed || st.endEmitted) return;
      st.scheduled = true;
      setImmediateFn(step);
    };
    const on = function on(type, listener) {
      reflectApply(EventEmitter.prototype.on, this, [type, listener]);
      if (type === 'data' && st.flowing !== false) {
        stream.resume();
      } else if (type === 'readable') {
        st.flowing = false;
        schedule();
      }
      return this;
    };
    const hide = (value) => ({ value, writable: true, enumerable: false, configurable: true });
    const methods = {
      on,
      addListener: on,
      resume() {
        st.flowing = true;
        schedule();
        return this;
      },
      pause() {
        st.flowing = false;
        return this;
      },
      isPaused() {
        return st.flowing === false;
      },
      setEncoding(encoding) {
        st.decoder = new StringDecoder(encoding);
        st.encoding = st.decoder.encoding;
        return this;
      },
      read() {
        schedule();
        if (!st.buffered.length) return null;
        const bytes = st.buffered.length === 1 ? st.buffered[0] :
          bufferModule.Buffer.concat(st.buffered);
        st.buffered = [];
        return decodeChunk(bytes);
      },
      pipe(dest, options) {
        stream.on('data', (chunk) => { dest.write(chunk); });
        if (!(options && options.end === false) && dest !== nodeModules.process.stdout &&
            dest !== nodeModules.process.stderr) {
          stream.on('end', () => { dest.end(); });
        }
        return dest;
      },
      unpipe() {
        stream.pause();
        return this;
      },
      destroy(err) {
        if (st.destroyed) return this;
        if (err) {
          fail(err);
        } else {
          st.destroyed = true;
          stream.emit('close');
        }
        return this;
      },
      ref() { return this; },
      unref() { return this; },
      setRawMode() { return this; },
      async *[Symbol.asyncIterator]() {
        for (;;) {
          await new PromiseCtor((resolve) => { setImmediateFn(resolve); });
          let chunk = st.buffered.length ? arrayShift(st.buffered) : pull();
          if (chunk === null) {
            const rest = st.decoder === null ? '' : st.decoder.end();
            st.decoder = null;
            if (rest.length) yield rest;
            finish();
            return;
          }
          chunk = decodeChunk(chunk);
          if (chunk.length) yield chunk;
        }
      },
    };
    for (const name of reflectOwnKeys(methods)) defineProperty(stream, name, hide(methods[name]));
    const props = {
      fd: 0,
      readable: () => !st.endEmitted && !st.destroyed,
      readableEnded: () => st.endEmitted,
      readableFlowing: () => st.flowing,
      readableEncoding: () => st.encoding,
      readableHighWaterMark: 65536,
      destroyed: () => st.destroyed,
    };
    for (const name of objectKeys(props)) {
      const v = props[name];
      defineProperty(stream, name, typeof v === 'function' ?
        { get: v, enumerable: false, configurable: true } : hide(v));
    }
    // A terminal is one (isTTY true); a pipe or a file leaves isTTY undefined, as in Node.
    if (hostStdinIsTTY()) defineProperty(stream, 'isTTY', hide(true));
    return stream;
  }

  // One stream per input: each run's (the host may give another between runs), and
  // each `js` command's of the shell.
  let stdinStream, stdinSource;
  defineProperty(nodeModules.process, 'stdin', {
    get: function stdin() {
      const source = hostStdinSource();
      if (stdinStream === undefined || stdinSource !== source) {
        stdinStream = makeStdin();
        stdinSource = source;
      }
      return stdinStream;
    },
    enumerable: true,
    configurable: true,
  });

  // ---------------------------------------------------------------------------
  // Modules: the built-in ones, require() (CommonJS), and the errors and import.meta of
  // the ES module loader (guest/fs.c)
  // ---------------------------------------------------------------------------

  // The built-in modules by name (without "node:"): node.js's, and fs, fs/promises, buffer,
  // and sqlite.js's.
  const builtins = { __proto__: null };
  for (const name of objectKeys(nodeModules)) builtins[name] = nodeModules[name];
  builtins.fs = fs;
  builtins['fs/promises'] = promises;
  builtins.buffer = bufferModule;
  // sqlite.js's: sqlite (node:sqlite) and better-sqlite3.
  for (const name of objectKeys(host.sqlite.modules)) builtins[name] = host.sqlite.modules[name];
  const builtinList = arrayJoin(arraySort(objectKeys(builtins)), ', ');

  // Node's other built-in modules, which the sandbox does not have.
  const nodeBuiltins = ['assert', 'async_hooks', 'buffer', 'child_process', 'cluster',
    'console', 'crypto', 'dgram', 'diagnostics_channel', 'dns', 'events', 'http', 'http2',
    'https', 'inspector', 'module', 'net', 'os', 'path', 'perf_hooks', 'process',
    'querystring', 'readline', 'repl', 'stream', 'string_decoder', 'sys', 'timers', 'tls',
    'tty', 'url', 'util', 'v8', 'vm', 'wasi', 'worker_threads', 'zlib'];

  const isBuiltinName = (name) => {
    const bare = stringStartsWith(name, 'node:') ? stringSlice(name, 5) : name;
    return arrayIncludes(nodeBuiltins, stringSplit(bare, '/')[0]);
  };

  // The built-in module a specifier names ("fs", "node:fs"), or undefined.
  const builtinOf = (id) => builtins[stringStartsWith(id, 'node:') ? stringSlice(id, 5) : id];

  const builtinNote = `the sandbox's built-in modules are ${builtinList}`;
  const notBuiltIn = (id) => `${id} is not available in the sandbox (${builtinNote})`;

  const isRelative = (id) => id === '.' || id === '..' || stringStartsWith(id, './') ||
    stringStartsWith(id, '../') || id[0] === '/';

  // The loaded CommonJS modules (and JSON files) by file name: require.cache.
  const requireCache = { __proto__: null };

  class Module {
    constructor(id, parent) {
      this.id = id;
      this.path = dirnamePath(id);
      this.exports = {};
      defineProperty(this, 'parent', {
        value: parent, writable: true, enumerable: false, configurable: true,
      });
      this.filename = null;
      this.loaded = false;
      this.children = [];
      this.paths = nodeModulePaths(this.path);
    }

    require(id) {
      return requireFrom(this, id);
    }
  }

  // The node_modules directories a bare specifier is looked up in from dir.
  function nodeModulePaths(dir) {
    const out = [];
    for (let d = dir; ; d = dirnamePath(d)) {
      if (stringSlice(d, -13) !== '/node_modules') {
        arrayPush(out, d === '/' ? '/node_modules' : `${d}/node_modules`);
      }
      if (d === '/') return out;
    }
  }

  const isFile = (p) => {
    const s = hostStat(p, true);
    return !failed(s) && s[0] === TYPE_FILE;
  };

  // The text of a file, without a byte order mark.
  function readText(filename) {
    const data = hostRead(filename);
    if (failed(data)) throw uvError(data, 'open', filename);
    const text = decodeUtf8(new Uint8ArrayCtor(data));
    return stringCharCodeAt(text, 0) === 0xFEFF ? stringSlice(text, 1) : text;
  }

  const extensions = ['.js', '.json', '.node'];

  function tryFile(base) {
    if (isFile(base)) return base;
    for (let i = 0; i < extensions.length; i++) {
      if (isFile(base + extensions[i])) return base + extensions[i];
    }
    return undefined;
  }

  // The conditions of a package's "exports" that require() and import match (a key
  // matches when it is one of them, in the order the package lists its keys);
  // require() takes the "import" entry when nothing else matched (require of an ES
  // module gives its namespace).
  const requireConditions = ['require', 'node', 'default'];
  const importConditions = ['import', 'node', 'default'];

  // A package's entry for `subpath` ("." or "./x") from its "exports" (a string, an
  // array, or conditions), for require() (conditions requireConditions) or import
  // (importConditions), else undefined.
  function packageExport(exportsField, subpath, conditions) {
    let target = exportsField;
    if (target !== null && typeof target === 'object' && !isArray(target)) {
      const keys = objectKeys(target);
      if (keys.length > 0 && keys[0][0] === '.') target = target[subpath];
      else if (subpath !== '.') return undefined;
    } else if (subpath !== '.') {
      return undefined;
    }
    for (let depth = 0; target !== null && typeof target === 'object' && depth < 8; depth++) {
      if (isArray(target)) {
        target = target[0];
        continue;
      }
      const keys = objectKeys(target);
      let next;
      for (let i = 0; i < keys.length && next === undefined; i++) {
        if (arrayIncludes(conditions, keys[i])) next = target[keys[i]];
      }
      if (next === undefined && conditions === requireConditions) next = target.import;
      target = next;
    }
    return typeof target === 'string' ? target : undefined;
  }

  // The file of the package `request` names ("name", "@scope/name", "name/sub"), looked
  // up in the node_modules directories dirs, for require() or import (conditions);
  // undefined when none has it.
  function findPackage(request, dirs, conditions) {
    const slash = stringIndexOf(request, '/', request[0] === '@' ?
      stringIndexOf(request, '/') + 1 : 0);
    const name = slash < 0 ? request : stringSlice(request, 0, slash);
    const subpath = slash < 0 ? '.' : `.${stringSlice(request, slash)}`;
    for (let i = 0; i < dirs.length; i++) {
      const pkgDir = `${dirs[i]}/${name}`;
      const pkg = readPackage(pkgDir);
      if (pkg !== undefined && pkg !== null && pkg.exports !== undefined) {
        const target = packageExport(pkg.exports, subpath, conditions);
        if (target !== undefined) {
          const found = tryFile(joinPath(pkgDir, target));
          if (found) return found;
        }
        continue;
      }
      const base = `${dirs[i]}/${request}`;
      const found = tryFile(base) || tryDirectory(base);
      if (found) return found;
    }
    return undefined;
  }

  // The file a bare specifier imported from the directory dir names (the ES module
  // loader's, guest/fs.c), or undefined.
  const resolvePackage = (specifier, dir) =>
    findPackage(specifier, nodeModulePaths(dir), importConditions);

  function readPackage(dir) {
    const file = `${dir}/package.json`;
    if (!isFile(file)) return undefined;
    try {
      return JSONParse(readText(file));
    } catch (err) {
      err.message = `Error parsing ${file}: ${err.message}`;
      throw err;
    }
  }

  function tryDirectory(dir) {
    const pkg = readPackage(dir);
    if (pkg !== undefined && pkg !== null && typeof pkg.main === 'string' && pkg.main) {
      const main = joinPath(dir, pkg.main);
      const found = tryFile(main) || tryFile(`${main}/index`);
      if (found) return found;
    }
    return tryFile(`${dir}/index`);
  }

  // Node's resolution of a file or package required from the module `parent`
  // (undefined: the run's script, in /workspace).
  function resolveFilename(request, parent) {
    const fromDir = parent === undefined ? nodePath.resolve('.') : parent.path;
    if (isRelative(request)) {
      const base = nodePath.resolve(fromDir, request);
      const found = (stringEndsWith(request, '/') ? undefined : tryFile(base)) || tryDirectory(base);
      if (found) return found;
    } else {
      const dirs = parent === undefined ? nodeModulePaths(fromDir) : parent.paths;
      const found = findPackage(request, dirs, requireConditions);
      if (found) return found;
    }
    const stack = [];
    for (let m = parent; m !== undefined; m = m.parent) arrayPush(stack, `- ${m.filename}`);
    if (parent === undefined || stack.length === 0) arrayPush(stack, `- ${scriptPath()}`);
    const err = nodeError(ErrorCtor, 'MODULE_NOT_FOUND',
      `Cannot find module '${request}'\nRequire stack:\n${arrayJoin(stack, '\n')}`);
    err.requireStack = arraySlice(stack);
    for (let i = 0; i < err.requireStack.length; i++) {
      err.requireStack[i] = stringSlice(err.requireStack[i], 2);
    }
    if (!isRelative(request) && (isBuiltinName(request) || stringIncludes(request, ':'))) {
      err.message = `Cannot find module '${request}': ${notBuiltIn(request)}`;
    }
    return err;
  }

  function validateId(id) {
    if (typeof id !== 'string') throw invalidArgType('id', 'of type string', id);
    if (id === '') throw invalidArgValue('id', id, 'must be a non-empty string');
  }

  // require(id) from `parent` (undefined: the run's script).
  function requireFrom(parent, id) {
    validateId(id);
    const builtin = builtinOf(id);
    if (builtin !== undefined) return builtin;
    if (stringStartsWith(id, 'node:')) {
      throw nodeError(ErrorCtor, 'ERR_UNKNOWN_BUILTIN_MODULE',
        `No such built-in module: ${id} (${builtinNote})`);
    }
    const filename = resolveFilename(id, parent);
    if (typeof filename !== 'string') throw filename;
    const cached = requireCache[filename];
    if (cached !== undefined) {
      if (parent !== undefined && !arrayIncludes(parent.children, cached)) {
        arrayPush(parent.children, cached);
      }
      return cached.exports;
    }
    return loadFile(filename, parent).exports;
  }

  // Loads the file `filename` as CommonJS (or JSON), or, when it is an ES module
  // (".mjs", or ".js" with import or export), evaluates it and gives its namespace.
  // fn is its wrapper function when guest/fs.c compiled it already.
  function loadFile(filename, parent, fn) {
    const module = new Module(filename, parent);
    module.filename = filename;
    if (stringEndsWith(filename, '.node')) {
      throw nodeError(ErrorCtor, 'ERR_DLOPEN_FAILED',
        `${filename}: native addons cannot be loaded in the sandbox`);
    }
    if (fn === undefined && stringEndsWith(filename, '.mjs')) {
      module.exports = hostImportModule(filename);
      module.loaded = true;
      return module;
    }
    let source;
    if (fn === undefined) {
      source = readText(filename);
      if (stringEndsWith(filename, '.json')) {
        requireCache[filename] = module;
        try {
          module.exports = JSONParse(source);
        } catch (err) {
          delete requireCache[filename];
          err.message = `${filename}: ${err.message}`;
          throw err;
        }
        module.loaded = true;
        if (parent !== undefined) arrayPush(parent.children, module);
        return module;
      }
      try {
        fn = hostCompileCommonJS(source, filename);
      } catch (err) {
        // An ES module (import, export, import.meta) is evaluated as one.
        if (stringEndsWith(filename, '.cjs') || !(err instanceof SyntaxErrorCtor)) throw err;
        module.exports = hostImportModule(filename);
        module.loaded = true;
        return module;
      }
    }
    requireCache[filename] = module;
    if (parent !== undefined) arrayPush(parent.children, module);
    const require = makeRequire(module);
    try {
      reflectApply(fn, module.exports, [module.exports, require, module, filename,
        module.path]);
    } catch (err) {
      delete requireCache[filename];
      throw err;
    }
    module.loaded = true;
    return module;
  }

  function makeRequire(module) {
    const require = {
      require(id) {
        return requireFrom(module, id);
      },
    }.require;
    require.resolve = {
      resolve(request) {
        validateId(request);
        if (builtinOf(request) !== undefined) return request;
        const filename = resolveFilename(request, module);
        if (typeof filename !== 'string') throw filename;
        return filename;
      },
    }.resolve;
    require.resolve.paths = {
      paths(request) {
        if (typeof request !== 'string') {
          throw invalidArgType('request', 'of type string', request);
        }
        if (builtinOf(request) !== undefined) return null;
        if (isRelative(request)) return [module === undefined ? nodePath.resolve('.') : module.path];
        return module === undefined ? nodeModulePaths(nodePath.resolve('.')) : module.paths;
      },
    }.paths;
    require.main = undefined;
    require.extensions = freeze({ __proto__: null, '.js': true, '.json': true, '.node': true });
    require.cache = requireCache;
    return require;
  }

  const require = makeRequire(undefined);

  // For guest/fs.c: the CommonJS module in `filename` (compiled to fn) when an ES module
  // imports it: its module.exports, loaded once (require.cache).
  function loadCommonJS(filename, fn) {
    const cached = requireCache[filename];
    if (cached !== undefined) return cached.exports;
    return loadFile(filename, undefined, fn).exports;
  }

  // The error of an import that failed (guest/fs.c): kind "module" (no such file),
  // "package" (a bare specifier), "builtin" (node:x), "directory", or "fs" (r says why).
  function moduleError(kind, specifier, importer, r) {
    const from = importer === undefined ? '' : ` imported from ${importer}`;
    switch (kind) {
      case 'module':
        return nodeError(ErrorCtor, 'ERR_MODULE_NOT_FOUND',
          `Cannot find module '${specifier}'${from}`);
      case 'directory':
        return nodeError(ErrorCtor, 'ERR_UNSUPPORTED_DIR_IMPORT',
          `Directory import '${specifier}' is not supported resolving ES modules${from}`);
      case 'fs':
        return uvError(r, 'open', specifier);
    }
    if (kind === 'builtin' || isBuiltinName(specifier)) {
      return nodeError(ErrorCtor, 'ERR_UNKNOWN_BUILTIN_MODULE',
        `No such built-in module: ${specifier}${from} (${builtinNote})`);
    }
    return nodeError(ErrorCtor, 'ERR_MODULE_NOT_FOUND', `Cannot find package '${specifier}'${from}`);
  }

  // Fills import.meta of the module read from the file `name`: url, filename, dirname.
  function importMeta(meta, name) {
    meta.url = pathToFileURL(name).href;
    meta.filename = name;
    meta.dirname = dirnamePath(name);
    return true;
  }

  for (const [name, value] of [['fs', fs], ['require', require]]) {
    defineProperty(globalThis, name, {
      value, writable: true, enumerable: false, configurable: true,
    });
  }

  // The completion value of this script, for guest/fs.c.
  return freeze({ fs, moduleError, importMeta, builtins, loadCommonJS, resolvePackage });
})();
