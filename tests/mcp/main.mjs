// The MCP suite: the SDK's client over stdio, bad input on the raw protocol, and
// (when given) the Streamable HTTP transport and the conformance suite. Prints
// "N passed, N failed" (tests/run.sh adds it up).
import { join } from 'node:path';
import { capsa, check, sdk, serverArgs, step, summary, tempDir } from './lib.mjs';
import { sdkSuite } from './sdk.mjs';
import { badInputSuite } from './bad.mjs';

// A capsa mcp on stdio with the SDK's client; 'AUDIT' in the arguments becomes a
// fresh audit file.
async function connectStdio(extra) {
  const audit = join(tempDir(), 'audit.jsonl');
  const args = serverArgs(extra.map((a) => (a === 'AUDIT' ? audit : a)));
  const transport = new sdk.StdioClientTransport({ command: capsa, args, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  const client = new sdk.Client({ name: 'capsa-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    audit,
    close: async () => {
      await client.close();
      check(!/capsa: trap|Sanitizer|runtime error/.test(stderr), 'stdio: the server\'s stderr shows no crash', stderr);
    },
  };
}

const which = process.argv.slice(2);
const all = which.length === 0;
if (all || which.includes('stdio')) await sdkSuite('stdio', connectStdio);
if (all || which.includes('bad')) await badInputSuite();
process.exitCode = summary() ? 1 : 0;
