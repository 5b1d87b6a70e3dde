// The reference of the MCP benchmark: a minimal MCP server built with the same
// SDK (@modelcontextprotocol/sdk, tests/mcp's pinned install) in Node.js, with one
// tool, execute, that runs its code as an async function body in a vm context of
// the session's own (no sandbox, no limits: the least an MCP code tool can do).
//   node mcp_ref.mjs stdio | http PORT      (MCP_NODE_DIR: the install)
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { join } from 'node:path';
import vm from 'node:vm';

const require = createRequire(join(process.env.MCP_NODE_DIR, 'package.json'));
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
const { randomUUID } = require('node:crypto');

function makeServer() {
  const server = new Server({ name: 'reference', version: '1.0.0' }, { capabilities: { tools: {} } });
  const context = vm.createContext({});
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'execute', inputSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const value = await vm.runInContext(`(async () => { ${req.params.arguments.code} })()`, context);
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: { result: value } };
  });
  return server;
}

if (process.argv[2] === 'stdio') {
  await makeServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const parsed = body ? JSON.parse(body) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = id && sessions.get(id);
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  });
  http.listen(Number(process.argv[3]), '127.0.0.1', () => {
    process.stderr.write(`serving http://127.0.0.1:${http.address().port}/mcp\n`);
  });
}
