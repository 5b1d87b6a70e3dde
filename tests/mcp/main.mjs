// The MCP suite: the SDK's client over stdio and Streamable HTTP, bad input on
// the raw protocol and on HTTP, and the conformance suite. Prints
// "N passed, N failed" (tests/run.sh adds it up).
import { capsa, check, clientOn, sdk, serverArgs, summary, withAudit } from './lib.mjs';
import { sdkSuite } from './sdk.mjs';
import { badInputSuite } from './bad.mjs';
import { connectHttp, httpSuite } from './http.mjs';
import { conformanceSuite } from './conformance.mjs';

// A capsa mcp on stdio with the SDK's client; 'AUDIT' in the arguments becomes a
// fresh audit file.
async function connectStdio(extra) {
  const [audit, args] = withAudit(extra);
  const transport = new sdk.StdioClientTransport({ command: capsa, args: serverArgs(args), stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  return clientOn(transport, audit, async () => {
    check(!/capsa: trap|Sanitizer|runtime error/.test(stderr), 'stdio: the server\'s stderr shows no crash', stderr);
  });
}

const which = process.argv.slice(2);
const all = which.length === 0;
if (all || which.includes('stdio')) await sdkSuite('stdio', connectStdio);
if (all || which.includes('bad')) await badInputSuite();
if (all || which.includes('http')) {
  await sdkSuite('http', connectHttp);
  await httpSuite();
}
if (all || which.includes('conformance')) await conformanceSuite();
process.exitCode = summary() ? 1 : 0;
