// Test fixture: a real MCP server built with the official SDK (McpServer + StreamableHTTPServerTransport, stateful
// sessions) on a node:http server at 127.0.0.1:0, with an optional bearer-token check. Used by the discovery tests.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface TestUpstream {
  url: string;
  port: number;
  /** Authorization headers of every request received, in order. */
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

export interface TestUpstreamOptions {
  /** When set, requests without `Authorization: Bearer <token>` get 401. */
  token?: string;
}

function buildServer(): McpServer {
  const server = new McpServer({ name: 'tollgate-test-upstream', version: '1.0.0' });
  server.registerTool('echo', {
    description: 'Echoes the text back',
    inputSchema: { text: z.string().describe('What to echo') },
  }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('add', {
    description: 'Adds two numbers',
    inputSchema: { a: z.number(), b: z.number() },
  }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  return server;
}

export async function startTestMcpUpstream(opts: TestUpstreamOptions = {}): Promise<TestUpstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: Array<string | undefined> = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    authorizations.push(req.headers.authorization);
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (existing) {
      await existing.handleRequest(req, res);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(typeof sid === 'string' ? 404 : 405).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => { sessions.set(id, transport); },
    });
    transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
    await buildServer().connect(transport);
    await transport.handleRequest(req, res);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    authorizations,
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
