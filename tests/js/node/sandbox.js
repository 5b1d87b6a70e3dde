// What process shows of the machine: nothing of the host's. The environment is what the
// host gave (none here), the arguments are the script's, and the names, ids and paths
// are the sandbox's own. (Not compared with Node: Node shows the host.)
console.log(process.env, Object.keys(process.env).length, process.env.HOME, process.env.PATH,
  process.env.USER);
console.log(process.argv, process.argv0, process.execPath, process.title);
console.log(process.pid, process.ppid, process.platform, process.arch, process.cwd());
console.log(typeof process.getuid, typeof process.geteuid, typeof process.getgroups,
  typeof process.kill, typeof process.dlopen, typeof process.binding, process.config);
for (const id of ['os', 'child_process', 'net', 'worker_threads', 'node:os']) {
  try {
    require(id);
    console.log(id, 'loaded');
  } catch (e) {
    console.log(id, e.code);
  }
}
try {
  process.chdir('/tmp');
} catch (e) {
  console.log('chdir', e.code);
}
console.log(process.cwd(), process.hrtime()[0] < 60, process.uptime() < 60);
const m = process.memoryUsage();
console.log(m.rss >= m.heapUsed, m.rss <= 4 * 1024 * 1024 * 1024);
