// Test fixture: a minimal MCP upstream that records every HTTP request byte for byte (method, path, raw body), so a
// test can assert what the gateway forwarded, not only what the client got back. It answers JSON (never SSE), with
// no sessions: initialize, tools/list (echo and secret), tools/call (records the tool it ran), resources/read, and an
// empty result for any other request; a POST of notifications and client replies alone gets 202. Tool discovery
// (the SDK client of POST /api/mcp/:id/tools) works against it. Its URL has a base path (`/base/mcp`) so tests can
// check that nothing reaches above it.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { readBody } from './fake-providers.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { createKey, createProxy, type ProxyUnderTest } from './mcp-kit.ts';

export interface Recorded {
  method: string;
  /** The request target exactly as received (path and query). */
  path: string;
  body: string;
}

export interface RecordingUpstream {
  url: string;
  received: Recorded[];
  /** Tool names of the tools/call requests and notifications it ran, in order. */
  ran: unknown[];
  /** POSTs carrying JSON-RPC (discovery's and the tests'), without GET/DELETE. */
  posts(): Recorded[];
  close(): Promise<void>;
}

const TOOLS = [
  { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'secret', description: 'Secret', inputSchema: { type: 'object', properties: {} } },
];

type Msg = Record<string, unknown>;

function resultFor(m: Msg, ran: unknown[]): unknown {
  const params = (typeof m.params === 'object' && m.params !== null ? m.params : {}) as Msg;
  switch (m.method) {
    case 'initialize':
      return { protocolVersion: params.protocolVersion ?? '2025-06-18', capabilities: { tools: {}, resources: {} }, serverInfo: { name: 'recording', version: '1' } };
    case 'tools/list': return { tools: TOOLS };
    case 'tools/call':
      ran.push(params.name);
      return { content: [{ type: 'text', text: `ran ${JSON.stringify(params.name)}` }] };
    case 'resources/read': return { contents: [{ uri: params.uri, mimeType: 'text/plain', text: 'upstream resource' }] };
    default: return {};
  }
}

function answer(body: string, ran: unknown[], res: ServerResponse): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    return;
  }
  const list = (Array.isArray(parsed) ? parsed : [parsed]) as Msg[];
  const out: unknown[] = [];
  for (const m of list) {
    if (typeof m.method !== 'string') continue;
    const result = resultFor(m, ran);
    if ('id' in m) out.push({ jsonrpc: '2.0', id: m.id, result });
  }
  if (!out.length) {
    res.writeHead(202).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
}

export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const received: Recorded[] = [];
  const ran: unknown[] = [];
  const http = createServer((req, res) => {
    void readBody(req).then((body) => {
      received.push({ method: req.method ?? '', path: req.url ?? '', body });
      if (req.method === 'POST') return answer(body, ran, res);
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
    }, () => res.destroy());
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/base/mcp`, received, ran,
    posts: () => received.filter((r) => r.method === 'POST'),
    async close() {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

export interface RecordingProxy {
  t: TestApp;
  up: RecordingUpstream;
  p: ProxyUnderTest;
  /** A client key granted `tools` on the proxy. */
  key: string;
}

/**
 * Registers the file's before/after hooks: a test app, a recording upstream, an MCP proxy in front of it and a key
 * granted `tools`. The returned object is filled in by `before`.
 */
export function recordingProxyForFile(tools?: string[]): RecordingProxy {
  const f = {} as RecordingProxy;
  before(async () => {
    f.t = await startTestApp();
    f.up = await startRecordingUpstream();
    f.p = await createProxy(f.t, await f.t.createUser(), f.up.url);
    f.key = await createKey(f.t, f.p, tools);
  });
  after(async () => {
    await f.up?.close();
    await f.t?.close();
  });
  return f;
}
