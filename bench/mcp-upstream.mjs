// The benchmark's upstream on 127.0.0.1:0. Prints "UPSTREAM <url>" when it listens. Argument: json (default) or sse:
// a real MCP server on the official SDK (stateful sessions) answering POSTs in that format; raw: the same tools and
// answers written straight onto node:http (no SDK, no schema validation), about a tenth of the SDK server's CPU per
// call, so that the upstream's core is not what bounds a run whose subject is the gateway (docs/performance.md,
// "A faster upstream for the MCP benchmark").
/* global Buffer */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const mode = process.argv[2] ?? 'json';
const json = mode !== 'sse';
const sessions = new Map();

// The ten tools, declared once: the SDK server validates calls with these zod shapes; the raw one lists their JSON
// Schema as the SDK does (zod's conversion, draft 7, the SDK's `execution` member), so both answer tools/list alike.
const TOOL_SPECS = [
  { name: 'echo', description: 'Echoes the text back', input: { text: z.string() } },
  ...Array.from({ length: 9 }, (_, i) => ({
    name: `tool_${i}`, description: `Realistic tool number ${i} with a few parameters`,
    input: { query: z.string().describe('What to look for'), limit: z.number().optional() },
  })),
];

function build() {
  const s = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  for (const t of TOOL_SPECS) {
    s.registerTool(t.name, { description: t.description, inputSchema: t.input }, async (a) => ({ content: [{ type: 'text', text: String(a.text ?? a.query) }] }));
  }
  return s;
}

const TOOLS = TOOL_SPECS.map((t) => ({
  name: t.name, description: t.description, inputSchema: z.toJSONSchema(z.object(t.input), { target: 'draft-7', io: 'input' }),
  execution: { taskSupport: 'forbidden' },
}));
const TOOLS_RESULT = JSON.stringify({ tools: TOOLS });

/** The raw server's result for one JSON-RPC request: its JSON text, or undefined for a method it does not serve. */
function rawResult(msg) {
  switch (msg.method) {
    case 'initialize': return JSON.stringify({ protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'bench-upstream', version: '1.0.0' } });
    case 'tools/list': return TOOLS_RESULT;
    case 'tools/call': {
      const a = msg.params?.arguments ?? {};
      return JSON.stringify({ content: [{ type: 'text', text: String(a.text ?? a.query ?? '') }] });
    }
    case 'ping': return '{}';
    default: return undefined;
  }
}

function rawHandler(req, res) {
  if (req.method !== 'POST') {
    res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    const sid = msg.method === 'initialize' ? randomUUID() : req.headers['mcp-session-id'];
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const result = rawResult(msg);
    const body = result === undefined
      ? `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"error":{"code":-32601,"message":"Method not found"}}`
      : `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`;
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (typeof sid === 'string') headers['mcp-session-id'] = sid;
    res.writeHead(200, headers).end(body);
  });
}

const http = createServer(mode === 'raw' ? rawHandler : async (req, res) => {
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
