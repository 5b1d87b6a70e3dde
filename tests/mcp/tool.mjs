// The host tools of the MCP tests, one program: `node tool.mjs NAME` reads the
// call's JSON arguments on stdin and prints its JSON result.
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', async () => {
  const args = input ? JSON.parse(input) : {};
  switch (process.argv[2]) {
    case 'add':
      process.stdout.write(JSON.stringify(args.a + args.b));
      break;
    case 'sleep':
      await new Promise((r) => setTimeout(r, args.ms));
      process.stdout.write(JSON.stringify('slept'));
      break;
    case 'secret':
      process.stdout.write(JSON.stringify('the secret'));
      break;
    default:
      process.stderr.write(`unknown tool ${process.argv[2]}`);
      process.exit(1);
  }
});
