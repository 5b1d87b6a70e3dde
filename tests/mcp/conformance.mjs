// The MCP conformance suite (@modelcontextprotocol/conformance, pinned) against
// capsa mcp --http: `conformance server --url ...` with conformance-baseline.yml
// as its expected failures. Its summary goes to the build directory
// (mcp-conformance.txt) and its pass count to this suite's output.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, check, here, nodeDir, step } from './lib.mjs';
import { startHttp } from './http.mjs';

export async function conformanceSuite() {
  await step('conformance', async () => {
    const srv = await startHttp();
    try {
      const bin = join(nodeDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
      const child = spawn(process.execPath, [bin, 'server', '--url', srv.url, '--expected-failures',
        join(here, 'conformance-baseline.yml')], { cwd: build, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { out += d; });
      const code = await new Promise((r) => child.on('exit', (c) => r(c)));
      writeFileSync(join(build, 'mcp-conformance.txt'), out);
      const total = /Total: (\d+) passed, (\d+) failed/.exec(out);
      console.log(`conformance: ${total ? total[0] : 'no total'} (the failures are the baseline's; see ${join(build, 'mcp-conformance.txt')})`);
      check(total !== null, 'the conformance suite ran to its summary', out.slice(-2000));
      check(code === 0, 'its results match the baseline (no unexpected failure, no listed scenario passing)', out.slice(-3000));
    } finally {
      await srv.stop();
    }
  });
}
