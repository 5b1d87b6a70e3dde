// The asynchronous forms: fs.promises (also require('fs/promises')), fs.x(...) returning
// promises, and Node's callback form when the last argument is a function.
const fs = globalThis.fs || require('fs');
const hasPromiseForm = typeof globalThis.fs === 'object';
const fsp = fs.promises;
const order = [];

(async () => {
  console.log(fsp === require('fs/promises'), fsp === require('node:fs/promises'),
    fs === require('node:fs'));
  const names = ['access', 'appendFile', 'copyFile', 'lstat', 'mkdir', 'mkdtemp', 'readFile',
    'readdir', 'readlink', 'realpath', 'rename', 'rm', 'rmdir', 'stat', 'symlink', 'truncate',
    'unlink', 'utimes', 'writeFile'];
  console.log(names.every((n) => typeof fsp[n] === 'function' && typeof fs[n] === 'function' &&
    typeof fs[`${n}Sync`] === 'function'), typeof fs.existsSync, typeof fs.exists);

  // Every promise function, in use.
  console.log(await fsp.mkdir('p/q', { recursive: true }) !== undefined);
  console.log(await fsp.writeFile('p/a.txt', 'alpha'));
  await fsp.appendFile('p/a.txt', new Uint8Array([0x21]));
  console.log(await fsp.readFile('p/a.txt', 'utf8'));
  console.log(Array.from(await fsp.readFile('p/a.txt')).length);
  console.log(await fsp.readdir('p'));
  console.log((await fsp.readdir('p', { withFileTypes: true })).map((d) => d.isDirectory()));
  console.log((await fsp.stat('p/a.txt')).size, (await fsp.lstat('p')).isDirectory());
  await fsp.copyFile('p/a.txt', 'p/b.txt');
  await fsp.rename('p/b.txt', 'p/c.txt');
  await fsp.symlink('c.txt', 'p/link');
  console.log(await fsp.readlink('p/link'), (await fsp.realpath('p/link')).endsWith('/p/c.txt'));
  await fsp.truncate('p/c.txt', 2);
  console.log(await fsp.readFile('p/link', 'utf8'));
  await fsp.utimes('p/c.txt', 10, 20);
  console.log((await fsp.stat('p/c.txt')).mtimeMs);
  console.log(await fsp.access('p/c.txt'));
  console.log((await fsp.mkdtemp('p/t-')).length);
  await fsp.unlink('p/link');
  await fsp.rmdir('p/q');
  await fsp.rm('p', { recursive: true });
  console.log(fs.existsSync('p'));

  // Callbacks: (err) or (null, result), called back later, after pending microtasks.
  fs.writeFile('cb.txt', 'callback', (err) => {
    order.push(`writeFile ${err}`);
    fs.readFile('cb.txt', 'utf8', (err2, data) => {
      order.push(`readFile ${err2} ${data}`);
      fs.stat('nope', (err3, st) => {
        order.push(`stat ${err3.code} ${st}`);
        fs.readdir('.', (err4, list) => {
          order.push(`readdir ${err4} ${list.includes('cb.txt')}`);
          fs.exists('cb.txt', (yes) => {
            order.push(`exists ${yes}`);
            fs.mkdir('cbdir/x', { recursive: true }, (err5, first) => {
              order.push(`mkdir ${err5} ${first}`);
              fs.rm('cbdir', { recursive: true }, (...args) => {
                order.push(`rm ${args.length} ${args[0]}`);
                console.log(order.join('\n'));
                if (hasPromiseForm) sandboxOnly();
              });
            });
          });
        });
      });
    });
  });
  Promise.resolve().then(() => order.push('microtask'));
  order.push('sync');
})();

// fs.exists and fs.readFile without a callback return promises in the sandbox.
async function sandboxOnly() {
  console.log(await fs.exists('cb.txt'), await fs.exists('nope'), await fsp.exists('cb.txt'));
  console.log(await fs.readFile('cb.txt', 'utf8'));
  try {
    await fs.readFile('nope');
  } catch (e) {
    console.log(e.code);
  }
}
