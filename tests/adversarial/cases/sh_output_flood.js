// yes writes forever: with stdio inherited the output limit holds; in a pipe the
// pipe's limit breaks it and head gets its lines.
const r = await shell('yes | head -n 3; echo "status ${PIPESTATUS:-done}"');
console.log(JSON.stringify(r));
await shell('yes', { stdio: 'inherit' });
