// Directories, stats, links and the other path operations, synchronously. Paths are
// relative to the working directory (/workspace).
const fs = globalThis.fs || require('fs');
const show = (f) => {
  try {
    console.log(JSON.stringify(f()));
  } catch (e) {
    console.log(`${e.name} ${e.code} ${e.errno} ${e.syscall} | ${e.message}`);
  }
};
const sorted = (a) => a.slice().sort();

// mkdir: plain, recursive (its result: the first directory it made, as given).
show(() => fs.mkdirSync('d'));
show(() => fs.mkdirSync('d/e/f', { recursive: true }));
show(() => fs.mkdirSync('d/e/f', { recursive: true }));
show(() => fs.mkdirSync('d/e/g/', { recursive: true }));
show(() => fs.mkdirSync('./x/../d/h', { recursive: true }));
show(() => fs.existsSync('d/e/f'));
show(() => fs.existsSync('d/nope'));
show(() => fs.existsSync(''));
show(() => fs.existsSync(undefined));

// readdir: names, Dirents, recursive listings.
fs.writeFileSync('d/a.txt', 'aaa');
fs.writeFileSync('d/e/b.txt', 'bb');
fs.symlinkSync('a.txt', 'd/link');
show(() => sorted(fs.readdirSync('d')));
show(() => sorted(fs.readdirSync('d', 'utf8')));
show(() => sorted(fs.readdirSync('d', { recursive: true })));
for (const ent of fs.readdirSync('d', { withFileTypes: true }).sort((x, y) => x.name < y.name ? -1 : 1)) {
  console.log(ent.constructor.name, ent.name, ent.parentPath, ent.path, ent.isFile(),
    ent.isDirectory(), ent.isSymbolicLink(), ent.isFIFO());
}
show(() => fs.readdirSync('d', { withFileTypes: true, recursive: true })
  .map((e) => `${e.parentPath}:${e.name}`).sort());
show(() => fs.readdirSync('d/e/f'));

// stat and lstat.
const st = fs.statSync('d/a.txt');
console.log(st.constructor.name, Object.keys(st).join(','));
console.log(st.size, st.isFile(), st.isDirectory(), st.isSymbolicLink(), st.mode & 0o170000,
  st.mtime instanceof Date, st.mtime.getTime() === Math.round(st.mtimeMs),
  Math.abs(st.mtimeMs - Date.now()) < 60000, st.blocks, st.nlink);
const ds = fs.statSync('d');
console.log(ds.isDirectory(), ds.isFile(), ds.mode & 0o170000);
console.log(fs.statSync('d/link').isSymbolicLink(), fs.lstatSync('d/link').isSymbolicLink(),
  fs.lstatSync('d/link').size, fs.statSync('d/link').size);
show(() => fs.statSync('d/nope', { throwIfNoEntry: false }));
show(() => fs.lstatSync('d/nope', { throwIfNoEntry: false }));

// Links: readlink, realpath.
show(() => fs.readlinkSync('d/link'));
show(() => fs.realpathSync('d/link').endsWith('/d/a.txt'));
show(() => fs.realpathSync('d/e/../link') === fs.realpathSync('d/a.txt'));
fs.symlinkSync('e', 'd/elink');
show(() => fs.readFileSync('d/elink/b.txt', 'utf8'));
show(() => fs.realpathSync('d/elink/../a.txt').endsWith('/d/a.txt'));
show(() => fs.realpathSync.native('d/elink').endsWith('/d/e'));
fs.symlinkSync('nowhere', 'd/dangling');
show(() => fs.existsSync('d/dangling'));
show(() => fs.lstatSync('d/dangling').isSymbolicLink());

// rename and copyFile.
show(() => fs.renameSync('d/a.txt', 'd/renamed.txt'));
show(() => fs.existsSync('d/a.txt'));
show(() => fs.readFileSync('d/renamed.txt', 'utf8'));
show(() => fs.renameSync('d/e', 'moved'));
show(() => sorted(fs.readdirSync('moved')));
show(() => fs.renameSync('moved', 'd/e'));
show(() => fs.copyFileSync('d/renamed.txt', 'd/copy.txt'));
show(() => fs.readFileSync('d/copy.txt', 'utf8'));
show(() => fs.copyFileSync('d/e/b.txt', 'd/copy.txt'));
show(() => fs.readFileSync('d/copy.txt', 'utf8'));
show(() => fs.copyFileSync('d/renamed.txt', 'd/copy.txt', fs.constants.COPYFILE_EXCL));
show(() => fs.copyFileSync('d/renamed.txt', 'd/copy2.txt', fs.constants.COPYFILE_EXCL));

// truncate, utimes, access.
show(() => fs.truncateSync('d/copy2.txt', 1));
show(() => fs.readFileSync('d/copy2.txt', 'utf8'));
show(() => fs.truncateSync('d/copy2.txt', 4));
show(() => Array.from(fs.readFileSync('d/copy2.txt')));
show(() => fs.truncateSync('d/copy2.txt'));
show(() => fs.statSync('d/copy2.txt').size);
show(() => fs.utimesSync('d/copy2.txt', 1000, new Date(2000000)));
show(() => [fs.statSync('d/copy2.txt').atimeMs, fs.statSync('d/copy2.txt').mtimeMs]);
show(() => fs.utimesSync('d/copy2.txt', '3', 4.5));
show(() => [fs.statSync('d/copy2.txt').atimeMs, fs.statSync('d/copy2.txt').mtimeMs]);
show(() => fs.accessSync('d/copy2.txt'));
show(() => fs.accessSync('d/copy2.txt', fs.constants.R_OK));

// mkdtemp.
const tmp = fs.mkdtempSync('d/tmp-');
console.log(/^d\/tmp-[A-Za-z0-9]{6}$/.test(tmp), fs.statSync(tmp).isDirectory());

// Removing: unlink, rmdir, rm.
show(() => fs.unlinkSync('d/copy.txt'));
show(() => fs.unlinkSync('d/dangling'));
show(() => fs.unlinkSync('d/elink'));
show(() => fs.existsSync('d/e'));
show(() => fs.rmdirSync(tmp));
show(() => fs.rmdirSync('d/e/f'));
show(() => fs.rmSync('d/copy2.txt'));
show(() => fs.rmSync('d/copy2.txt', { force: true }));
show(() => fs.rmSync('d/e', { recursive: true }));
show(() => sorted(fs.readdirSync('d')));
show(() => fs.rmdirSync('d/h', { recursive: true }));
show(() => fs.rmSync('d', { recursive: true, force: true }));
show(() => fs.existsSync('d'));
show(() => fs.readdirSync('.').filter((n) => n === 'd' || n === 'moved'));
