// SSRF through the whole app (issue "Hardening", part 2): a name that resolves to an allowed address when it is
// checked and to a refused one afterwards (DNS rebinding between check and connect), and upstreams that answer with a
// redirect to an address the guard would refuse. Only 127.0.0.1 is allowed here; 127.0.0.2 plays the internal host
// (a loopback address, refused like any private one), with a trap server on it that must never see a request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { INIT } from '@tollgate/testkit/mcp-kit.ts';

interface Listener { server: Server; port: number; hits: string[] }

async function listen(host: string, port: number, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Listener> {
  const hits: string[] = [];
  const server = createServer((req, res) => { hits.push(`${req.method} ${req.url}`); handler(req, res); });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, host, resolve); });
  return { server, port: (server.address() as AddressInfo).port, hits };
}

const close = (l: Listener) => new Promise((r) => { l.server.closeAllConnections(); l.server.close(r); });

let t: TestApp;
let user: TestUser;
let up: McpUpstream;
let fake: FakeProvider;
/** The internal service an attacker wants to reach: 127.0.0.2 on the upstream's port, and 127.0.0.1 on another. */
let trap: Listener;
let trapSameHost: Listener;
/** An upstream that answers every request with a redirect to `redirectTo`. */
let redirector: Listener;
let redirectTo = '';
/** What the fake DNS answers for rebind.test: allowed when the proxy is created, internal afterwards. */
let rebindAnswer = ['127.0.0.1'];

before(async () => {
  up = await startMcpUpstream();
  trap = await listen('127.0.0.2', up.port, (_, res) => res.end('{"internal":"secret"}'));
  trapSameHost = await listen('127.0.0.1', 0, (_, res) => res.end('{"internal":"secret"}'));
  redirector = await listen('127.0.0.1', 0, (_, res) => res.writeHead(307, { location: redirectTo }).end());
  fake = await startFakeProvider('openai');
  t = await startTestApp({
    strictUpstreams: true,
    env: { TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.1/32', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url },
    lookup: async (host) => {
      if (host === 'rebind.test') return rebindAnswer;
      if (host === 'redirect.test') return ['127.0.0.1'];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    },
  });
  user = await t.createUser();
});
after(async () => {
  await t.close();
  await up.close();
  await fake.close();
  await Promise.all([trap, trapSameHost, redirector].map(close));
});

async function mcpServer(url: string): Promise<string> {
  const r = await t.request('POST', '/api/mcp', { token: user.pat, body: { name: 'ssrf', url } });
  assert.equal(r.status, 201, r.text);
  return r.body.server.id as string;
}

async function mcpKey(id: string): Promise<string> {
  const r = await t.request('POST', '/api/keys', { token: user.pat, body: { name: `k${id.slice(0, 8)}`, mcpPermissions: [{ id, tools: ['*'], resources: ['*'] }] } });
  assert.equal(r.status, 201, r.text);
  return r.body.key.key as string;
}

/** A POST through the gateway that does not follow redirects itself (a client following one is the client's business). */
async function gatewayPost(url: string, key: string, body: unknown = INIT): Promise<Response> {
  return fetch(url, {
    method: 'POST', redirect: 'manual', body: JSON.stringify(body),
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });
}

test('the trap is reachable directly, so a request that reached it would show', async () => {
  assert.equal((await fetch(`http://127.0.0.2:${trap.port}/`)).status, 200);
  assert.equal((await fetch(`http://127.0.0.1:${trapSameHost.port}/`)).status, 200);
  trap.hits.length = 0;
  trapSameHost.hits.length = 0;
});

test('DNS rebinding between check and connect: after the name turns internal, the gateway and discovery still connect to the pinned address only', async () => {
  rebindAnswer = ['127.0.0.1'];
  const id = await mcpServer(`http://rebind.test:${up.port}/mcp`);
  const key = await mcpKey(id);
  rebindAnswer = ['127.0.0.2']; // the attacker's DNS now points the name at the internal host
  const seen = up.requests.length;
  const r = await gatewayPost(`${t.gateway}/${id}/`, key);
  assert.equal(r.status, 200, await r.text());
  const d = await t.request('POST', `/api/mcp/${id}/tools`, { token: user.pat });
  assert.equal(d.status, 200, d.text);
  assert.ok(up.requests.length > seen, 'the pinned upstream got the requests');
  assert.deepEqual(trap.hits, [], 'the internal host got nothing');
  // A re-resolve sees the new answer and refuses it; the pin stays where it was.
  const rr = await t.request('POST', `/api/mcp/${id}/re-resolve`, { token: user.pat });
  assert.deepEqual([rr.status, rr.body], [400, { error: 'url: host resolves to a loopback address (127.0.0.2)' }]);
  assert.deepEqual((await t.request('GET', `/api/mcp/${id}`, { token: user.pat })).body.pin, { hostname: 'rebind.test', ip: '127.0.0.1', port: up.port });
  assert.equal((await gatewayPost(`${t.gateway}/${id}/`, key)).status, 200);
  assert.deepEqual(trap.hits, []);
});

test('an MCP upstream redirecting to an internal address: the gateway passes the redirect to the client and never follows it', async () => {
  const id = await mcpServer(`http://redirect.test:${redirector.port}/mcp`);
  const key = await mcpKey(id);
  for (const target of [`http://127.0.0.2:${trap.port}/`, `http://127.0.0.1:${trapSameHost.port}/`, 'http://169.254.169.254/latest/meta-data/']) {
    redirectTo = target;
    const r = await gatewayPost(`${t.gateway}/${id}/`, key);
    await r.arrayBuffer();
    assert.equal(r.status, 307, target);
  }
  assert.deepEqual(trap.hits, []);
  assert.deepEqual(trapSameHost.hits, []);
});

test('tool discovery against an upstream that redirects is a 502 naming the redirect, never a request to its target', async () => {
  const id = await mcpServer(`http://redirect.test:${redirector.port}/mcp`);
  // The MCP SDK's client follows same-origin redirects only (same scheme, host and port: the pinned address). Another
  // port of the same host would pass the pinned connection, so it matters that this one is not followed either.
  for (const target of [`http://redirect.test:${trapSameHost.port}/mcp`, `http://127.0.0.2:${trap.port}/mcp`, `http://127.0.0.1:${trapSameHost.port}/mcp`]) {
    redirectTo = target;
    const r = await t.request('POST', `/api/mcp/${id}/tools`, { token: user.pat });
    assert.equal(r.status, 502, `${target}: ${r.text}`);
    assert.match(r.body.error, /redirect|307/i, target);
  }
  assert.deepEqual(trap.hits, []);
  assert.deepEqual(trapSameHost.hits, []);
});

test('an LLM provider answering with a redirect: the client gets it as is, the gateway never follows it', async () => {
  const p = await t.request('POST', '/api/llm', { token: user.pat, body: { name: 'llm', provider: 'openai', providerKey: fake.providerKey } });
  assert.equal(p.status, 201, p.text);
  const k = await t.request('POST', '/api/keys', { token: user.pat, body: { name: 'llmkey', llmPermissions: [{ id: p.body.id, models: ['*'] }] } });
  assert.equal(k.status, 201, k.text);
  fake.override = (_, res) => { res.writeHead(302, { location: `http://127.0.0.2:${trap.port}/v1/chat/completions` }).end(); return true; };
  try {
    const r = await gatewayPost(`${t.gateway}/${p.body.id}/v1/chat/completions`, k.body.key.key, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    await r.arrayBuffer();
    assert.equal(r.status, 302);
  } finally {
    fake.override = undefined;
  }
  assert.deepEqual(trap.hits, []);
});
