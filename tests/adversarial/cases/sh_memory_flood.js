// A variable doubled until memory runs out: the shell reports it, the host stays.
const r = await shell('x=a; while :; do x="$x$x"; done');
console.log(r.exitCode, r.stderr.slice(0, 200));
