// The shell looks for the host's files: every path it can write leads into the
// sandbox's own filesystem.
const r = await shell(`
cat /etc/passwd
cat ../../../../../../etc/passwd
cd / && ls -a
cd /workspace/../../../.. && pwd && ls
ln -s /etc/passwd link && cat link
ln -s ../../../../etc etc && ls etc
find / -name passwd
cat /proc/self/environ
echo "$CAPSA_ADV_SECRET" | wc -c
env | grep -c CAPSA_ADV_SECRET
realpath ../../../..
tar -cf /tmp/x.tar / 2>/dev/null; tar -tf /tmp/x.tar | grep -c passwd
`);
console.log(r.stdout);
console.log(r.stderr);
