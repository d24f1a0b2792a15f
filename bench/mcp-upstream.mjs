// The benchmark's upstream: a real MCP server on the official SDK (stateful sessions) on 127.0.0.1:0. Prints
// "UPSTREAM <url>" when it listens. Argument: json (default) or sse, the answer format of POSTs.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const json = process.argv[2] !== 'sse';
const sessions = new Map();

function build() {
  const s = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  s.registerTool('echo', { description: 'Echoes the text back', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  for (let i = 0; i < 9; i++) {
    s.registerTool(`tool_${i}`, { description: `Realistic tool number ${i} with a few parameters`, inputSchema: { query: z.string().describe('What to look for'), limit: z.number().optional() } },
      async ({ query }) => ({ content: [{ type: 'text', text: query }] }));
  }
  return s;
}

const http = createServer(async (req, res) => {
  try {
    const sid = req.headers['mcp-session-id'];
    const t = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (t) return await t.handleRequest(req, res);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(), enableJsonResponse: json,
      onsessioninitialized: (id) => { sessions.set(id, transport); },
    });
    await build().connect(transport);
    await transport.handleRequest(req, res);
  } catch {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});
http.keepAliveTimeout = 65_000;
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`UPSTREAM http://127.0.0.1:${http.address().port}/mcp\n`);
});
