// Tool discovery (POST /api/mcp/:id/tools) against a real MCP server built with the official SDK, and the 502s.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { freePort } from '@tollgate/testkit/free-port.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startHtmlServer, startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { describeFailure, discoverTools } from './discovery.ts';

const TOKEN = 'upstream-token-5f1c9e';
let t: TestApp;
let upstream: McpUpstream;
/** The tools the test upstream serves. */
const CATALOG = ['add', 'ask', 'big', 'counter', 'echo', 'headers', 'secret', 'slow'];
let html: { url: string; close(): Promise<void> };
// Names under .test never resolve in real DNS: reaching the server through one proves discovery used the pin.
const lookup = async (host: string) => {
  if (host === 'mcp.upstream.test') return ['127.0.0.1'];
  throw new Error('ENOTFOUND');
};

before(async () => {
  t = await startTestApp({ lookup });
  upstream = await startMcpUpstream({ token: TOKEN });
  html = await startHtmlServer();
});
after(async () => {
  await upstream.close();
  await html.close();
  await t.close();
});

async function createMcp(u: TestUser, body: Record<string, unknown>): Promise<string> {
  const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'up', ...body } });
  assert.equal(r.status, 201, r.text);
  return r.body.server.id;
}

test('discovery lists the upstream tools with the bearer token and stores the catalog', async () => {
  const u = await t.createUser();
  const id = await createMcp(u, { url: upstream.url, authType: 'bearer', authToken: TOKEN });
  const seen = upstream.requests.length;
  const r = await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat });
  assert.equal(r.status, 200, r.text);
  const tools = r.body.tools as Array<{ name: string; description: string; inputSchema: { type: string; properties: Record<string, unknown>; required?: string[] } }>;
  assert.deepEqual(tools.map((x) => x.name).sort(), CATALOG);
  const echo = tools.find((x) => x.name === 'echo')!;
  assert.equal(echo.description, 'Echoes the text back');
  assert.equal(echo.inputSchema.type, 'object');
  assert.deepEqual(Object.keys(echo.inputSchema.properties), ['text']);
  assert.deepEqual(echo.inputSchema.required, ['text']);
  assert.ok(!r.text.includes(TOKEN));
  // Every request of the discovery session carried the upstream token.
  const sent = upstream.requests.slice(seen).map((x) => x.headers.authorization);
  assert.ok(sent.length >= 2);
  assert.ok(sent.every((a) => a === `Bearer ${TOKEN}`), JSON.stringify(sent));
  // Persisted, and handed to the gateway (it filters tools/list by the catalog).
  const g = await t.request('GET', `/api/mcp/${id}`, { token: u.pat });
  assert.deepEqual(g.body.tools, tools);
  const proxy = t.app.gateway!.store.current.proxies.get(id);
  assert.deepEqual(proxy?.kind === 'mcp' ? proxy.tools : undefined, tools);
});

test('discovery connects to the pinned address, not a fresh DNS answer', async () => {
  const u = await t.createUser();
  const url = upstream.url.replace('127.0.0.1', 'mcp.upstream.test');
  const id = await createMcp(u, { url, authType: 'bearer', authToken: TOKEN });
  const r = await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.tools.length, CATALOG.length);
});

test('a wrong upstream token: 502 relaying the upstream status, without the token', async () => {
  const u = await t.createUser();
  const id = await createMcp(u, { url: upstream.url, authType: 'bearer', authToken: 'wrong-token-abc' });
  const r = await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat });
  assert.equal(r.status, 502);
  assert.match(r.body.error, /^Upstream MCP server error: .*HTTP 401/);
  assert.ok(!r.text.includes('wrong-token-abc'));
  assert.deepEqual((await t.request('GET', `/api/mcp/${id}`, { token: u.pat })).body.tools, []);
});

test('an unreachable upstream: 502 naming the connection failure', async () => {
  const u = await t.createUser();
  const port = await freePort();
  const id = await createMcp(u, { url: `http://127.0.0.1:${port}/mcp` });
  const r = await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat });
  assert.equal(r.status, 502);
  assert.match(r.body.error, /^Upstream MCP server error: .*ECONNREFUSED/);
});

test('an upstream answering HTML: 502 naming the content type', async () => {
  const u = await t.createUser();
  const id = await createMcp(u, { url: html.url });
  const r = await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat });
  assert.equal(r.status, 502);
  assert.match(r.body.error, /^Upstream MCP server error: .*text\/html/);
});

test('a failed discovery keeps the previous catalog', async () => {
  const u = await t.createUser();
  const id = await createMcp(u, { url: upstream.url, authType: 'bearer', authToken: TOKEN });
  assert.equal((await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat })).status, 200);
  await t.request('PATCH', `/api/mcp/${id}`, { token: u.pat, body: { authToken: 'now-wrong' } });
  assert.equal((await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat })).status, 502);
  const g = await t.request('GET', `/api/mcp/${id}`, { token: u.pat });
  assert.equal(g.body.tools.length, CATALOG.length);
});

test('failure messages are one bounded line with the secret scrubbed', () => {
  const err = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' }) });
  assert.equal(describeFailure(err), 'Upstream MCP server error: fetch failed: connect ECONNREFUSED 10.0.0.1:443');
  const http = Object.assign(new Error('Error POSTing to endpoint: bad token s3cr3t\n<html>'), { code: 401 });
  assert.equal(describeFailure(http, 's3cr3t'), 'Upstream MCP server error: HTTP 401: Error POSTing to endpoint: bad token [redacted] <html>');
  assert.ok(describeFailure(new Error('x'.repeat(5000))).length < 600);
});

test('an upstream response over the size cap fails discovery instead of filling memory', async () => {
  const pin = { hostname: '127.0.0.1', ip: '127.0.0.1', port: upstream.port };
  const ok = await discoverTools({ url: upstream.url, pin, bearerToken: TOKEN });
  assert.equal(ok.length, CATALOG.length);
  await assert.rejects(discoverTools({ url: upstream.url, pin, bearerToken: TOKEN, maxResponseBytes: 200 }),
    /^Error: Upstream MCP server error: .*response larger than 200 bytes/);
});

test('an upstream that accepts the connection but never answers times out', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((sock) => { sockets.push(sock); });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const port = (silent.address() as AddressInfo).port;
  try {
    const started = Date.now();
    await assert.rejects(discoverTools({ url: `http://127.0.0.1:${port}/mcp`, pin: { hostname: '127.0.0.1', ip: '127.0.0.1', port }, timeoutMs: 300 }),
      /^Error: Upstream MCP server error: .*Request timed out/);
    assert.ok(Date.now() - started < 5000);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  }
});
