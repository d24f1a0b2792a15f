// Test fixture, the one MCP upstream of the test suite: a real MCP server on the official SDK (McpServer +
// StreamableHTTPServerTransport, stateful sessions, resumable streams through the SDK's in-memory event store) on
// node:http 127.0.0.1:0. Its tools cover what the
// gateway must carry: plain answers, secrets to redact, a large payload, a streaming tool with progress and log
// notifications, a call counter (caching), and a tool that reports the headers it received.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { z } from 'zod';

export interface McpUpstream {
  url: string;
  port: number;
  /** Headers of every HTTP request received, in order. */
  requests: Array<{ method: string; headers: IncomingHttpHeaders }>;
  /** How many times each tool ran. */
  calls: Map<string, number>;
  /** How many times a long-running tool (slow) finished, its answer handed to the transport. */
  finished: Map<string, number>;
  close(): Promise<void>;
}

export interface McpUpstreamOptions {
  /** Answer POSTs with JSON instead of SSE. */
  json?: boolean;
  /** Require `Authorization: Bearer <token>`. */
  token?: string;
  /** Register no resources (the server then has no resources capability). */
  noResources?: boolean;
  /** The SDK's own DNS-rebinding protection: only its loopback address and port are accepted as Host. */
  hostProtection?: boolean;
  /** Extra headers on every answer (an upstream that sets cookies, for instance). */
  responseHeaders?: Record<string, string | string[]>;
}

export const SECRET_TEXT = 'card 4111-1111-1111-1111 belongs to alice@example.com';

function buildServer(calls: Map<string, number>, finished: Map<string, number>, opts: McpUpstreamOptions, lastHeaders: () => IncomingHttpHeaders): McpServer {
  const server = new McpServer({ name: 'gateway-test-upstream', version: '1.0.0' }, { capabilities: { logging: {} } });
  const ran = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  server.registerTool('echo', { description: 'Echoes the text back', inputSchema: { text: z.string() } }, async ({ text }) => {
    ran('echo');
    return { content: [{ type: 'text', text }] };
  });
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    ran('add');
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  server.registerTool('secret', { description: 'Returns sensitive data', inputSchema: {} }, async () => {
    ran('secret');
    return { content: [{ type: 'text', text: SECRET_TEXT }], structuredContent: undefined };
  });
  server.registerTool('counter', { description: 'Counts its calls', inputSchema: { key: z.string().optional() } }, async () => {
    ran('counter');
    return { content: [{ type: 'text', text: `call ${calls.get('counter')}` }] };
  });
  server.registerTool('big', { description: 'Returns n kilobytes (after a log message of logKb)', inputSchema: { kb: z.number(), logKb: z.number().optional() } }, async ({ kb, logKb }, extra) => {
    ran('big');
    if (logKb) await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(logKb * 1024) } });
    return { content: [{ type: 'text', text: 'x'.repeat(kb * 1024) }] };
  });
  server.registerTool('headers', { description: 'Reports the request headers it saw', inputSchema: {} }, async () => {
    ran('headers');
    const h = lastHeaders();
    return { content: [{ type: 'text', text: JSON.stringify({ authorization: h.authorization ?? null, origin: h.origin ?? null, cookie: h.cookie ?? null }) }] };
  });
  server.registerTool('slow', {
    description: 'Streams progress and log messages, then answers',
    inputSchema: { steps: z.number(), delayMs: z.number(), secretInLog: z.boolean().optional() },
  }, async ({ steps, delayMs, secretInLog }, extra) => {
    ran('slow');
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, delayMs));
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: secretInLog ? `step ${i} ${SECRET_TEXT}` : `step ${i}` } });
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `at ${Date.now()}` } });
    }
    finished.set('slow', (finished.get('slow') ?? 0) + 1);
    return { content: [{ type: 'text', text: `done at ${Date.now()}` }] };
  });
  server.registerTool('ask', { description: 'Asks the client to sample a message (server-to-client request)', inputSchema: { question: z.string() } }, async ({ question }) => {
    ran('ask');
    const r = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens: 10 });
    const said = (r.content as { text?: string }).text ?? '?';
    return { content: [{ type: 'text', text: `client said: ${said}` }] };
  });
  if (!opts.noResources) {
    server.registerResource('readme', 'upstream://readme', { description: 'Upstream readme', mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'upstream readme' }],
    }));
  }
  return server;
}

export async function startMcpUpstream(opts: McpUpstreamOptions = {}): Promise<McpUpstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const requests: McpUpstream['requests'] = [];
  const calls = new Map<string, number>();
  const finished = new Map<string, number>();
  let last: IncomingHttpHeaders = {};

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    requests.push({ method: req.method ?? '', headers: req.headers });
    last = req.headers;
    for (const [name, value] of Object.entries(opts.responseHeaders ?? {})) res.setHeader(name, value);
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (req.method !== 'POST' || typeof sid === 'string') {
      res.writeHead(typeof sid === 'string' ? 404 : 405, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Session not found' }, id: null }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: !!opts.json,
      eventStore: new InMemoryEventStore(),
      ...(opts.hostProtection ? { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`] } : {}),
      onsessioninitialized: (id) => { sessions.set(id, transport); },
    });
    transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
    await buildServer(calls, finished, opts, () => last).connect(transport);
    await transport.handleRequest(req, res);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  let port = 0;
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`, port, requests, calls, finished,
    async close() {
      for (const t of sessions.values()) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

/** A plain HTTP server answering every request with an HTML page (a misconfigured upstream). */
export async function startHtmlServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to nginx!</body></html>');
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}
