import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from './api-client.ts';

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
    for (const call of [client.get('/api/llm'), client.post('/api/llm', { name: 'x' })]) {
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
    '/api/json': ['application/json', JSON.stringify({ error: 'Proxy not found' })],
    '/api/html': ['text/html', `<h1>502</h1>${'x'.repeat(10_000)}`],
    '/api/other-json': ['application/json', '{"detail":"nope"}'],
  };
  const api = await serve((req, res) => { const [type, body] = bodies[req.url!]!; res.writeHead(req.url === '/api/json' ? 404 : 502, { 'content-type': type }); res.end(body); });
  try {
    const client = new ApiClient({ endpoint: api.url, token: 't' });
    const json = await client.get('/api/json');
    assert.deepEqual(!json.ok && json.error, { status: 404, message: 'Proxy not found', body: { bytes: 27, json: true, errorField: true } });
    const html = await client.get('/api/html');
    assert.equal(!html.ok && html.error.message.length, 200, 'the provider still shows the start of the body');
    assert.deepEqual(!html.ok && html.error.body, { bytes: 10_012, json: false, errorField: false });
    const other = await client.get('/api/other-json');
    assert.deepEqual(!other.ok && other.error.body, { bytes: 17, json: true, errorField: false });
  } finally {
    await api.close();
  }
});
