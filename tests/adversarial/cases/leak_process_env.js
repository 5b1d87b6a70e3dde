// process.env and the rest of process show nothing of the host: its environment (PATH,
// HOME, USER are set where the tests run), user, host name or working directory.
const env = process.env;
const seen = JSON.stringify([env, Object.keys(env), process.cwd(), process.pid, process.ppid,
  process.title, process.platform, process.config, process.release, process.argv]);
const hostish = /\/home\/|\/root|\/usr\/local|PATH|HOSTNAME|USER|LOGNAME/.test(seen);
let uid;
try { uid = typeof process.getuid; } catch (e) { uid = e.name; }
return [Object.keys(env).length, env.PATH, env.HOME, hostish, uid, typeof process.kill,
  typeof process.binding, typeof process.dlopen];
