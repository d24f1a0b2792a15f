// Test kit for MCP gateway tests: a proxy in front of a real SDK upstream, created through the management API
// (POST /api/mcp, tool discovery, POST /api/keys, PUT rules), and SDK clients that reach it by the path route or the
// host route (`<id>.<proxy_domain>`, which does not resolve here: a pinned undici agent sends it to the gateway).
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Dispatcher } from 'undici';
import { createPinnedAgent } from '@tollgate/server/src/net/pinned-dispatcher.ts';
import { fetchVia } from './undici-fetch.ts';
import type { BodyOf } from '@tollgate/contract';
import { must, type TestApp, type TestUser } from './harness.ts';

export interface ProxyUnderTest {
  id: string;
  user: TestUser;
  /** Path-route URL of the proxy. */
  pathUrl: string;
  /** Host-route URL of the proxy (needs hostFetch). */
  hostUrl: string;
}

export async function createProxy(t: TestApp, user: TestUser, upstreamUrl: string, extra: Record<string, unknown> = {}): Promise<ProxyUnderTest> {
  const api = t.client(user.pat);
  const { id } = must(await api.call('POST /api/mcp', { body: { name: 'gw-test', url: upstreamUrl, ...extra } as BodyOf<'POST /api/mcp'> })).server;
  must(await api.call('POST /api/mcp/:id/tools', { params: { id } }));
  const port = new URL(t.gateway).port;
  return { id, user, pathUrl: `${t.gateway}/${id}/`, hostUrl: `http://${id}.${t.config.proxyDomain}:${port}/` };
}

export async function createKey(t: TestApp, p: ProxyUnderTest, tools: string[] = ['*'], resources: string[] = []): Promise<string> {
  // Random so keys made by one test never collide on the per-user unique name.
  const name = `k${Math.random().toString(36).slice(2, 8)}`;
  return must(await t.client(p.user.pat).call('POST /api/keys', { body: { name, mcpPermissions: [{ id: p.id, tools, resources }] } })).key.key;
}

export async function putRules(t: TestApp, p: ProxyUnderTest, rules: unknown[]): Promise<void> {
  must(await t.client(p.user.pat).call('PUT /api/mcp/:id/rules', { params: { id: p.id }, body: { rules } as BodyOf<'PUT /api/mcp/:id/rules'> }));
}

/** A fetch whose connections for `<id>.<proxy_domain>` go to the gateway's loopback address. */
export function hostFetch(t: TestApp, p: ProxyUnderTest): { fetch: typeof fetch; agent: Dispatcher } {
  const gw = new URL(t.gateway);
  const agent = createPinnedAgent({ hostname: new URL(p.hostUrl).hostname, ip: gw.hostname, port: Number(gw.port) });
  return { fetch: fetchVia(agent), agent };
}

export interface ConnectOptions {
  token?: string;
  via?: 'path' | 'host';
  headers?: Record<string, string>;
  /** Client capabilities announced in initialize (e.g. sampling). */
  capabilities?: Record<string, unknown>;
}

export async function connect(t: TestApp, p: ProxyUnderTest, o: ConnectOptions = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport; close(): Promise<void> }> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let agent: Dispatcher | undefined;
  let url = p.pathUrl;
  let f: typeof fetch | undefined;
  if (o.via === 'host') {
    ({ fetch: f, agent } = hostFetch(t, p));
    url = p.hostUrl;
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: f });
  const client = new Client({ name: 'gateway-test-client', version: '1.0.0' }, { capabilities: o.capabilities ?? {} });
  await client.connect(transport);
  return {
    client, transport,
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
      await agent?.close();
    },
  };
}

/** A raw JSON-RPC POST through the gateway (no SDK), for status codes and headers the SDK hides. */
export async function rawPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch { /* SSE or plain */ }
  return { status: r.status, headers: r.headers, text, json };
}

/** Messages carried in an SSE body (data of each event, parsed). */
export function sseMessages(text: string): any[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  return text.split(/\n\n/).map((e) => e.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n'))
    .filter((d) => d).map((d) => JSON.parse(d));
}

export const INIT = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** Opens a session with raw POSTs; returns the session id. */
export async function rawSession(url: string, token: string): Promise<string> {
  const r = await rawPost(url, INIT, { authorization: `Bearer ${token}` });
  assert.equal(r.status, 200, r.text);
  const sid = r.headers.get('mcp-session-id');
  assert.ok(sid, 'the session id passes through');
  const n = await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { authorization: `Bearer ${token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
  assert.equal(n.status, 202, n.text);
  return sid;
}

export async function flushedEvents(t: TestApp, proxyId: string): Promise<Array<{ event_type: string; rule_name: string | null; tool: string | null; client_ip: string; details: Record<string, unknown>; user_id: string }>> {
  await t.app.services.audit.flush();
  return t.app.services.db.query('SELECT event_type, rule_name, tool, client_ip, details, user_id FROM audit_events WHERE mcp_uuid = $1 ORDER BY id', [proxyId]);
}
