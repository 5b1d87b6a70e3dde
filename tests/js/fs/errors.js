// Node's errors for each failing call, sync and async: message, code, errno, syscall,
// path and dest; TypeErrors for bad arguments. Paths are relative to /workspace.
const fs = globalThis.fs || require('fs');
const describe = (e) => `${e.name} ${e.code} ${e.errno} ${e.syscall} ${e.path} ${e.dest} | ${e.message}`;
const t = (label, f) => {
  try {
    console.log(label, 'ok', f());
  } catch (e) {
    console.log(label, describe(e));
  }
};

(async () => {
  fs.writeFileSync('file', 'x');
  fs.mkdirSync('dir');
  fs.writeFileSync('dir/inside', 'y');
  fs.mkdirSync('empty');

  // ENOENT
  t('readFile', () => fs.readFileSync('nope'));
  t('readFile deep', () => fs.readFileSync('nope/deeper/file.txt'));
  t('readFile empty path', () => fs.readFileSync(''));
  t('writeFile', () => fs.writeFileSync('nope/x', 'x'));
  t('appendFile', () => fs.appendFileSync('nope/x', 'x'));
  t('stat', () => fs.statSync('nope'));
  t('lstat', () => fs.lstatSync('nope'));
  t('readdir', () => fs.readdirSync('nope'));
  t('mkdir', () => fs.mkdirSync('nope/x'));
  t('rmdir', () => fs.rmdirSync('nope'));
  t('unlink', () => fs.unlinkSync('nope'));
  t('rm', () => fs.rmSync('nope'));
  t('rename', () => fs.renameSync('nope', 'other'));
  t('copyFile', () => fs.copyFileSync('nope', 'other'));
  t('readlink', () => fs.readlinkSync('nope'));
  t('truncate', () => fs.truncateSync('nope'));
  t('utimes', () => fs.utimesSync('nope', 1, 1));
  t('access', () => fs.accessSync('nope'));
  t('mkdtemp', () => fs.mkdtempSync('nope/x-'));
  t('symlink', () => fs.symlinkSync('file', 'nope/link'));

  // EEXIST
  t('mkdir exists', () => fs.mkdirSync('dir'));
  t('mkdir file', () => fs.mkdirSync('file'));
  t('mkdir -p file', () => fs.mkdirSync('file', { recursive: true }));
  t('symlink exists', () => fs.symlinkSync('x', 'file'));
  t('writeFile wx', () => fs.writeFileSync('file', 'x', { flag: 'wx' }));
  t('appendFile ax', () => fs.appendFileSync('file', 'x', { flag: 'ax' }));

  // EISDIR
  t('readFile dir', () => fs.readFileSync('dir'));
  t('writeFile dir', () => fs.writeFileSync('dir', 'x'));
  t('appendFile dir', () => fs.appendFileSync('dir', 'x'));
  t('unlink dir', () => fs.unlinkSync('dir'));
  t('copyFile to dir', () => fs.copyFileSync('file', 'dir'));
  t('copyFile from dir', () => fs.copyFileSync('dir', 'other'));
  t('rename file over dir', () => fs.renameSync('file', 'dir'));

  // ENOTDIR
  t('readFile under file', () => fs.readFileSync('file/x'));
  t('readFile file/', () => fs.readFileSync('file/'));
  t('readdir file', () => fs.readdirSync('file'));
  t('rmdir file', () => fs.rmdirSync('file'));
  t('mkdir under file', () => fs.mkdirSync('file/x'));
  t('mkdir -p under file', () => fs.mkdirSync('file/x/y', { recursive: true }));
  t('rename dir over file', () => fs.renameSync('dir', 'file'));

  // ENOTEMPTY, EINVAL
  t('rmdir not empty', () => fs.rmdirSync('dir'));
  t('rename over non-empty', () => fs.renameSync('empty', 'dir'));
  t('readlink file', () => fs.readlinkSync('file'));
  t('rename into itself', () => fs.renameSync('dir', 'dir/sub'));

  // rm on a directory without recursive: Node's SystemError.
  try {
    fs.rmSync('dir');
  } catch (e) {
    console.log(describe(e), JSON.stringify(e.info), Object.keys(e).join(','));
  }

  // The error objects themselves.
  try {
    fs.readFileSync('nope');
  } catch (e) {
    console.log(e instanceof Error, Object.getPrototypeOf(e) === Error.prototype,
      Object.keys(e).join(','), String(e));
  }

  // Bad arguments.
  t('no path', () => fs.readFileSync());
  t('number path', () => fs.statSync(true));
  t('object path', () => fs.readdirSync({}));
  t('null path', () => fs.writeFileSync(null, 'x'));
  t('NUL in path', () => fs.readFileSync('a\u0000b'));
  t('bad encoding', () => fs.readFileSync('file', 'bogus'));
  t('bad encoding option', () => fs.readFileSync('file', { encoding: 'utf9' }));
  t('bad options', () => fs.readFileSync('file', 42));
  t('bad data number', () => fs.writeFileSync('file', 42));
  t('bad data object', () => fs.writeFileSync('file', {}));
  t('bad data missing', () => fs.writeFileSync('file'));
  t('bad flag', () => fs.writeFileSync('file', 'x', { flag: 'q' }));
  t('bad recursive', () => fs.mkdirSync('dir', { recursive: 1 }));
  t('bad copy mode', () => fs.copyFileSync('file', 'other', 9));
  t('bad truncate length', () => fs.truncateSync('file', 'a'));
  t('bad rename target', () => fs.renameSync('file', undefined));
  t('http URL', () => fs.readFileSync(new URL('http://example.com/x')));
  t('file URL with host', () => fs.readFileSync(new URL('file://host/x')));

  // The promise forms reject (never throw) with the same errors.
  const p = fs.promises.readFile('nope');
  p.catch(() => {});
  console.log('promise', p instanceof Promise);
  for (const [label, f] of [
    ['p readFile', () => fs.promises.readFile('nope')],
    ['p readFile dir', () => fs.promises.readFile('dir')],
    ['p writeFile dir', () => fs.promises.writeFile('dir', 'x')],
    ['p mkdir', () => fs.promises.mkdir('dir')],
    ['p rmdir', () => fs.promises.rmdir('dir')],
    ['p rm', () => fs.promises.rm('dir')],
    ['p stat', () => fs.promises.stat('nope')],
    ['p readdir', () => fs.promises.readdir('file')],
    ['p rename', () => fs.promises.rename('nope', 'x')],
    ['p copyFile', () => fs.promises.copyFile('nope', 'x')],
    ['p bad path', () => fs.promises.readFile(42)],
    ['p bad encoding', () => fs.promises.readFile('file', 'bogus')],
  ]) {
    try {
      const r = f();
      console.log(label, 'returned', r instanceof Promise);
      await r;
      console.log(label, 'resolved');
    } catch (e) {
      console.log(label, describe(e));
    }
  }
  try {
    await p;
  } catch (e) {
    console.log('first', e.code);
  }
})();
