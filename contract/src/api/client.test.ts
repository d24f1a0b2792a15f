import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from './client.ts';

/** A server on port 0 that records the requests it gets. */
async function serve(handler: RequestListener) {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => { seen.push(req); handler(req, res); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

test('a redirect is an error naming its status and is never followed: the target gets no request, no PAT', async () => {
  const target = await serve((_req, res) => res.end('{}'));
  const api = await serve((req, res) => { res.writeHead(302, { location: `${target.url}${req.url}` }); res.end('moved'); });
  try {
    const client = new ApiClient({ endpoint: api.url, token: 'svc_pat_secret' });
    for (const call of [client.call('GET /api/llm'), client.call('POST /api/llm', { body: { name: 'x', provider: 'openai' } })]) {
      const r = await call;
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.error.status, 302);
      assert.equal(!r.ok && r.error.body, undefined, 'no body to speak of: the redirect\'s is not read');
    }
    assert.equal(api.seen.length, 2);
    assert.equal(target.seen.length, 0);
  } finally {
    await api.close();
    await target.close();
  }
});

test('a failed answer says whether its message is the {error} field, and how big the body was', async () => {
  const bodies: Record<string, [string, string]> = {
    '/api/keys/json': ['application/json', JSON.stringify({ error: 'Proxy not found' })],
    '/api/keys/html': ['text/html', `<h1>502</h1>${'x'.repeat(10_000)}`],
    '/api/keys/other-json': ['application/json', '{"detail":"nope"}'],
  };
  const api = await serve((req, res) => { const [type, body] = bodies[req.url!]!; res.writeHead(req.url === '/api/keys/json' ? 404 : 502, { 'content-type': type }); res.end(body); });
  try {
    const client = new ApiClient({ endpoint: api.url, token: 't' });
    const json = await client.call('GET /api/keys/:id', { params: { id: 'json' } });
    assert.deepEqual(!json.ok && json.error, { status: 404, message: 'Proxy not found', body: { bytes: 27, json: true, errorField: true } });
    const html = await client.call('GET /api/keys/:id', { params: { id: 'html' } });
    assert.equal(!html.ok && html.error.message.length, 200, 'the provider still shows the start of the body');
    assert.deepEqual(!html.ok && html.error.body, { bytes: 10_012, json: false, errorField: false });
    const other = await client.call('GET /api/keys/:id', { params: { id: 'other-json' } });
    assert.deepEqual(!other.ok && other.error.body, { bytes: 17, json: true, errorField: false });
  } finally {
    await api.close();
  }
});

test('path parameters are encoded into one segment each, the query is appended, and an empty one is refused unsent', async () => {
  const answer = { credentialId: 'k', name: null, key: 'tg_abc...1234', models: [], budget: null, createdAt: 1, links: { budget: '', budgetReset: '', usageDaily: '', usageHistory: '' } };
  const api = await serve((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(answer)); });
  try {
    const client = new ApiClient({ endpoint: `${api.url}/`, token: 't' });
    const r = await client.call('GET /api/llm/:id/keys/:credId/budget', { params: { id: '../mcp', credId: 'a/b?c#d' } });
    assert.deepEqual(r, { ok: true, status: 200, body: answer });
    assert.equal(api.seen[0]!.url, '/api/llm/..%2Fmcp/keys/a%2Fb%3Fc%23d/budget');
    await client.call('GET /api/logs', { query: { page: 2, event_type: 'deny', tool: undefined } });
    assert.equal(api.seen[1]!.url, '/api/logs?page=2&event_type=deny');
    const empty = await client.call('GET /api/keys/:id', { params: { id: '' } });
    assert.deepEqual(empty, { ok: false, error: { status: 0, message: 'GET /api/keys/:id: the path parameter id is empty' } });
    assert.equal(api.seen.length, 2, 'a call with an empty parameter never reaches the server');
  } finally {
    await api.close();
  }
});

test('an answer that drifted from the contract is an error naming the field, not a wrongly typed object', async () => {
  const api = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [{ id: 'k', key: 'tg_abc...1234', tags: 'name:ci', created_at: 1, ttl: null }] }));
  });
  try {
    const r = await new ApiClient({ endpoint: api.url, token: 't' }).call('GET /api/keys');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.error.drift, true);
    assert.equal(!r.ok && r.error.status, 200);
    assert.match(!r.ok ? r.error.message : '', /^GET \/api\/keys answered a body that does not match the contract: keys\.0\.tags: .*array/);
  } finally {
    await api.close();
  }
});

// Checked by `npm run typecheck`, never run: the route table is the only way to address the API.
export async function typeChecks(client: ApiClient): Promise<void> {
  // @ts-expect-error a route the contract does not have
  await client.call('GET /api/keyz');
  // @ts-expect-error the key id is required
  await client.call('GET /api/keys/:id');
  // @ts-expect-error the parameter is credId, not keyId
  await client.call('GET /api/llm/:id/keys/:credId/budget', { params: { id: 'p', keyId: 'k' } });
  // @ts-expect-error provider is one of four ids
  await client.call('POST /api/llm', { body: { name: 'n', provider: 'nope' } });
  // @ts-expect-error a GET takes no body
  await client.call('GET /api/keys', { body: {} });
  const r = await client.call('GET /api/llm/:id', { params: { id: 'p' } });
  if (r.ok) {
    const provider: 'openai' | 'anthropic' | 'gemini' | 'mistral' = r.body.provider;
    // @ts-expect-error the record never carries the provider key
    void r.body.apiKey;
    void provider;
  }
}
