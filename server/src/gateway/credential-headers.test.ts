// A client credential never reaches an upstream, whatever header carries it and whichever proxy kind it is sent to
// (one header policy for both: upstream/headers.ts). Every credential header a client may use travels with a
// request to an MCP proxy and to an LLM proxy of each provider; the upstream sees only its own credential, the
// gateway injected it, and ordinary headers still pass.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { createKey, createProxy, INIT } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { createLlmKey, createLlmProxy, startLlmEnv, type LlmEnv } from '@tollgate/testkit/llm-kit.ts';
import type { ProviderId } from '@tollgate/contract';

/** Every header a client may put a secret in, each with a value that must never show up upstream. */
const CLIENT_SECRETS: Record<string, string> = {
  'x-api-key': 'client-secret-x-api-key',
  'x-goog-api-key': 'client-secret-goog',
  'api-key': 'client-secret-azure',
  cookie: 'session=client-secret-cookie',
  'proxy-authorization': 'Basic client-secret-proxy',
  forwarded: 'for=client-secret-forwarded',
  'x-forwarded-for': '203.0.113.9',
  'x-real-ip': '203.0.113.9',
  connection: 'keep-alive, x-hop-secret',
  'x-hop-secret': 'client-secret-hop',
};

/** A JSON POST with node:http, which sends headers fetch would refuse to (Connection and what it names). */
function post(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(Buffer.byteLength(payload)), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function assertNoClientSecret(seen: IncomingHttpHeaders, clientKey: string): void {
  const all = JSON.stringify(seen);
  assert.ok(!all.includes('client-secret'), `a client secret reached the upstream: ${all}`);
  assert.ok(!all.includes(clientKey), 'the client key reached the upstream');
  assert.ok(!all.includes('203.0.113.9'), 'a client-claimed address reached the upstream');
  for (const h of ['x-api-key', 'x-goog-api-key', 'api-key', 'cookie', 'proxy-authorization', 'forwarded', 'x-forwarded-for', 'x-real-ip', 'x-hop-secret']) {
    if (seen[h] !== undefined) assert.fail(`${h} was forwarded: ${String(seen[h])}`);
  }
  assert.equal(seen['x-trace-id'], 'trace-1', 'ordinary headers pass');
}

let e: LlmEnv;
let up: McpUpstream;
before(async () => {
  e = await startLlmEnv();
  up = await startMcpUpstream({ token: 'upstream-token-1' });
});
after(async () => {
  await up.close();
  await e.close();
});

test('MCP: every client credential header stays at the gateway; the upstream gets only its own bearer token', async () => {
  const p = await createProxy(e.t, e.user, up.url, { authType: 'bearer', authToken: 'upstream-token-1' });
  const key = await createKey(e.t, p);
  const seen = up.requests.length;
  const r = await post(p.pathUrl, INIT, { ...CLIENT_SECRETS, authorization: `Bearer ${key}`, 'x-trace-id': 'trace-1' });
  assert.equal(r.status, 200, r.text);
  const got = up.requests.slice(seen);
  assert.equal(got.length, 1);
  assert.equal(got[0]!.headers.authorization, 'Bearer upstream-token-1');
  assertNoClientSecret(got[0]!.headers, key);
});

const PROVIDER_CASES: Array<[ProviderId, string, Record<string, unknown>, string]> = [
  ['openai', '/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, 'authorization'],
  ['mistral', '/v1/chat/completions', { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }] }, 'authorization'],
  ['anthropic', '/v1/messages', { model: 'claude-3-5-haiku-latest', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, 'x-api-key'],
  ['gemini', '/v1beta/models/gemini-2.0-flash:generateContent', { contents: [{ parts: [{ text: 'hi' }] }] }, 'x-goog-api-key'],
];

for (const [provider, path, body, providerHeader] of PROVIDER_CASES) {
  test(`LLM (${provider}): every client credential header stays at the gateway; the provider gets only the stored key in ${providerHeader}`, async () => {
    const p = await createLlmProxy(e, provider);
    const k = await createLlmKey(e, p);
    const r = await post(`${p.base}${path}`, body, { ...CLIENT_SECRETS, authorization: `Bearer ${k.key}`, 'x-trace-id': 'trace-1' });
    assert.equal(r.status, 200, r.text);
    const seen = p.fake.last().headers;
    const expected = providerHeader === 'authorization' ? `Bearer ${p.fake.providerKey}` : p.fake.providerKey;
    assert.equal(seen[providerHeader], expected);
    const others = { ...seen };
    delete others[providerHeader];
    assert.ok(!JSON.stringify(others).includes(p.fake.providerKey), 'the provider key travels in its one header only');
    assertNoClientSecret(others, k.key);
  });
}
