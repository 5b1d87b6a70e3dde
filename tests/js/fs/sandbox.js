// The sandbox's filesystem as fs sees it: the working directory, what each mount
// allows (/ and /tools read-only, /log append-only, /workspace and /tmp read-write),
// ".." and symlinks that try to leave it, and the quotas.
const t = (label, f) => {
  try {
    console.log(label, 'ok', JSON.stringify(f()));
  } catch (e) {
    console.log(label, `${e.code} ${e.errno} ${e.syscall} |`, e.message);
  }
};

// The working directory is /workspace.
t('cwd', () => fs.realpathSync('.'));
fs.writeFileSync('here.txt', 'relative');
t('relative lands in /workspace', () => fs.readFileSync('/workspace/here.txt', 'utf8'));
t('root', () => fs.readdirSync('/').sort());
t('root stat', () => fs.statSync('/').isDirectory());

// ".." never climbs above "/": these name /etc/passwd, /tmp, /x of the sandbox.
t('escape read', () => fs.readFileSync('/workspace/../../etc/passwd'));
t('escape relative', () => fs.readFileSync('../../../../../etc/passwd', 'utf8'));
t('escape readdir', () => fs.readdirSync('/../../..').sort());
t('escape to /tmp', () => fs.writeFileSync('../../../tmp/t.txt', 'in tmp'));
t('landed in /tmp', () => fs.readFileSync('/tmp/t.txt', 'utf8'));
t('escape write', () => fs.writeFileSync('../../x', 'x'));
t('realpath escape', () => fs.realpathSync('/workspace/../../tmp'));

// Read-only: / and /tools.
t('write /', () => fs.writeFileSync('/x', 'x'));
t('mkdir /', () => fs.mkdirSync('/newdir'));
t('write /tools', () => fs.writeFileSync('/tools/x', 'x'));
t('mkdir /tools', () => fs.mkdirSync('/tools/d'));
t('mkdir -p /tools', () => fs.mkdirSync('/tools/d/e', { recursive: true }));
t('mkdir -p existing', () => fs.mkdirSync('/tools', { recursive: true }));
t('symlink /tools', () => fs.symlinkSync('/workspace', '/tools/l'));
t('read /tools', () => fs.readdirSync('/tools'));

// Append-only: /log. Files there can be read and appended to (the host creates them),
// never created, written over, renamed or removed.
t('write /log', () => fs.writeFileSync('/log/x', 'x'));
t('append new /log', () => fs.appendFileSync('/log/x', 'x'));
t('mkdir /log', () => fs.mkdirSync('/log/d'));
t('readdir /log', () => fs.readdirSync('/log'));

// Mount roots cannot be removed or renamed; renames cannot cross mounts.
t('rmdir /tmp', () => fs.rmdirSync('/tmp'));
t('rename /tmp', () => fs.renameSync('/tmp', '/workspace/tmp2'));
t('rename across', () => fs.renameSync('/workspace/here.txt', '/tmp/here.txt'));
t('copy across', () => fs.copyFileSync('/workspace/here.txt', '/tmp/here.txt'));
t('copied', () => fs.readFileSync('/tmp/here.txt', 'utf8'));

// Symlinks resolve inside the sandbox; one that climbs out of "/" is refused.
fs.symlinkSync('/tools', 'tools-link');
t('absolute link', () => fs.readdirSync('tools-link'));
fs.symlinkSync('../../../..', 'up');
t('link out', () => fs.readdirSync('up'));
t('readlink out', () => fs.readlinkSync('up'));
fs.symlinkSync('loop-b', 'loop-a');
fs.symlinkSync('loop-a', 'loop-b');
t('loop', () => fs.readFileSync('loop-a'));
t('loop stat', () => fs.statSync('loop-a'));
t('loop lstat', () => fs.lstatSync('loop-a').isSymbolicLink());
t('loop realpath', () => fs.realpathSync('loop-a'));

// Names and paths that are too long.
t('long name', () => fs.writeFileSync('n'.repeat(256), 'x'));
try {
  fs.readFileSync('d/'.repeat(2100));
} catch (e) {
  console.log('long path', e.code, e.path.length);
}

// Quotas: the largest file (EDQUOT) and the whole filesystem (ENOSPC), 64 MiB by
// default. A failed write leaves the file empty (it was truncated first).
const mb = 1024 * 1024;
t('70 MiB file', () => fs.writeFileSync('big1', 'x'.repeat(70 * mb)));
t('its size', () => fs.statSync('big1').size);
t('40 MiB', () => fs.writeFileSync('big1', new Uint8Array(40 * mb)));
t('40 MiB more', () => fs.writeFileSync('/tmp/big2', 'y'.repeat(40 * mb)));
t('append over', () => fs.appendFileSync('big1', new Uint8Array(30 * mb)));
t('sizes', () => [fs.statSync('big1').size, fs.statSync('/tmp/big2').size]);
t('free it', () => fs.rmSync('big1'));
t('60 MiB now fits', () => fs.writeFileSync('/tmp/big2', new Uint8Array(60 * mb)));
t('read it back', () => fs.readFileSync('/tmp/big2').length);
t('clean up', () => fs.unlinkSync('/tmp/big2'));

// rm -r of a mount root removes what it holds, then fails on the root itself.
t('rm /workspace', () => fs.rmSync('/workspace', { recursive: true }));
t('emptied', () => fs.readdirSync('/workspace'));
