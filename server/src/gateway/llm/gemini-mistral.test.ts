import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from 'undici';
import { createLlmKey, createLlmProxy, rawLlm, startLlmEnv, type LlmEnv, type LlmProxyUnderTest } from '@tollgate/testkit/llm-kit.ts';

let e: LlmEnv;
let gem: LlmProxyUnderTest;
let mis: LlmProxyUnderTest;
let gemKey: string;
let misKey: string;

before(async () => {
  e = await startLlmEnv();
  gem = await createLlmProxy(e, 'gemini');
  mis = await createLlmProxy(e, 'mistral');
  gemKey = (await createLlmKey(e, gem)).key;
  misKey = (await createLlmKey(e, mis)).key;
});
after(async () => { await e.close(); });

const ask = { contents: [{ role: 'user', parts: [{ text: 'Explain AI in one sentence' }] }] };

test('gemini generateContent with the client key in x-goog-api-key: the provider key replaces it', async () => {
  const r = await rawLlm(`${gem.base}/v1beta/models/gemini-2.5-flash:generateContent`, ask, { 'x-goog-api-key': gemKey });
  assert.equal(r.status, 200, r.text);
  assert.match(r.json.candidates[0].content.parts[0].text, /^AI learns/);
  const got = gem.fake.last();
  assert.equal(got.path, '/v1beta/models/gemini-2.5-flash:generateContent');
  assert.equal(got.headers['x-goog-api-key'], gem.fake.providerKey);
  assert.ok(!JSON.stringify(got.headers).includes(gemKey));
});

test('gemini with the client key in ?key=: the query parameter is removed before forwarding', async () => {
  const r = await rawLlm(`${gem.base}/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse&key=${gemKey}`, ask);
  assert.equal(r.status, 200, r.text);
  assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
  assert.match(r.text, /a robot/);
  const got = gem.fake.last();
  assert.equal(got.path, '/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
  assert.equal(got.headers['x-goog-api-key'], gem.fake.providerKey);
});

test('gemini with the client key as Authorization Bearer; streamGenerateContent without alt=sse (JSON array)', async () => {
  const r = await rawLlm(`${gem.base}/v1beta/models/gemini-2.0-flash:streamGenerateContent`, ask, { authorization: `Bearer ${gemKey}` });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.length, 2);
  assert.equal(gem.fake.last().headers.authorization, undefined);
});

test('mistral chat, JSON and SSE, with Authorization Bearer both ways', async () => {
  const r = await rawLlm(`${mis.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'Bonjour' }] }, { authorization: `Bearer ${misKey}` });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.choices[0].message.content, 'Bonjour ! Comment puis-je vous aider ?');
  assert.equal(mis.fake.last().headers.authorization, `Bearer ${mis.fake.providerKey}`);
  const s = await rawLlm(`${mis.base}/v1/chat/completions`, { model: 'mistral-small-latest', stream: true, messages: [{ role: 'user', content: 'Hi' }] }, { authorization: `Bearer ${misKey}` });
  assert.equal(s.status, 200);
  assert.match(s.text, /data: \[DONE\]/);
  assert.equal(mis.fake.last().json?.stream_options, undefined, 'nothing is added to Mistral streams');
});

test('a key granted on one proxy reaches nothing on another (default-deny per proxy)', async () => {
  const r = await rawLlm(`${mis.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [] }, { authorization: `Bearer ${gemKey}` });
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, { error: 'This API key has no access to this LLM proxy' });
});

test('endpoints outside the route table are refused; the model listing is served', async () => {
  const n = mis.fake.received.length;
  const r = await rawLlm(`${mis.base}/v1/files`, { purpose: 'x' }, { authorization: `Bearer ${misKey}` });
  assert.deepEqual([r.status, r.json], [403, { error: 'Endpoint not allowed: POST /v1/files is not served by this LLM proxy' }]);
  const files = await fetch(`${mis.base}/v1/files`, { headers: { authorization: `Bearer ${misKey}` } });
  assert.equal(files.status, 403, 'reads outside the table are refused too');
  assert.equal(mis.fake.received.length, n);
  const g = await fetch(`${mis.base}/v1/models`, { headers: { authorization: `Bearer ${misKey}` } });
  assert.equal(g.status, 200);
  assert.equal(mis.fake.last().method, 'GET');
});

test('the PAT is never valid on a proxy URL', async () => {
  const r = await rawLlm(`${mis.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [] }, { authorization: `Bearer ${e.user.pat}` });
  assert.equal(r.status, 401);
});

test('an upstream that breaks off is a 502 with an error event; a proxy without a provider key is a 502 too', async () => {
  mis.fake.override = (_r, res) => {
    res.socket?.destroy();
    return true;
  };
  try {
    const r = await rawLlm(`${mis.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [] }, { authorization: `Bearer ${misKey}` });
    assert.deepEqual([r.status, r.json], [502, { error: 'Upstream unreachable' }]);
  } finally {
    mis.fake.override = undefined;
  }
  const p = await createLlmProxy(e, 'mistral', { providerKey: null });
  const k = await createLlmKey(e, p);
  const n = p.fake.received.length;
  const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [] }, { authorization: `Bearer ${k.key}` });
  assert.deepEqual([r.status, r.json], [502, { error: 'This LLM proxy has no provider key' }]);
  assert.equal(p.fake.received.length, n);
  await e.t.flush();
  const errors = await e.t.request('GET', '/api/logs?event_type=error&limit=50', { token: e.user.pat });
  const reasons = (errors.body.logs as Array<{ details: { reason: string } }>).map((l) => l.details.reason);
  assert.ok(reasons.includes('upstream_unreachable') && reasons.includes('no_provider_key'), reasons.join());
});

test('dot segments are refused, never resolved; bodies that are not JSON are 400 after auth', async () => {
  // fetch would resolve the dots itself; undici's path option sends them as written.
  const client = new Client(new URL(mis.base).origin);
  const n = mis.fake.received.length;
  const dotted = await client.request({
    method: 'POST', path: `/${mis.id}/v1/files/../chat/completions`,
    headers: { authorization: `Bearer ${misKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mistral-small-latest', messages: [{ role: 'user', content: 'x' }] }),
  });
  await dotted.body.text();
  assert.equal(dotted.statusCode, 400, 'the provider could resolve the path otherwise than the gateway');
  const sneaky = await client.request({
    method: 'POST', path: `/${mis.id}/v1/chat/completions/../../files`,
    headers: { authorization: `Bearer ${misKey}`, 'content-type': 'application/json' }, body: '{}',
  });
  await sneaky.body.text();
  assert.equal(sneaky.statusCode, 400);
  assert.equal(mis.fake.received.length, n);
  await client.close();
  const bad = await fetch(`${mis.base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${misKey}`, 'content-type': 'application/json' }, body: '{not json' });
  assert.deepEqual([bad.status, await bad.json()], [400, { error: 'Invalid JSON body' }]);
  const anon = await fetch(`${mis.base}/v1/chat/completions`, { method: 'POST', body: '{not json' });
  assert.equal(anon.status, 401);
});

test('a proxy whose provider host has no DNS pin is never contacted by name: 502', async () => {
  const p = await createLlmProxy(e, 'mistral');
  const k = await createLlmKey(e, p);
  const { bumpConfigVersion } = await import('../../snapshot/changes.ts');
  await e.t.app.services.db.query('UPDATE llm_proxies SET pin = NULL WHERE id = $1', [p.id]);
  await e.t.app.services.configChanged(await bumpConfigVersion(e.t.app.services.db));
  const n = p.fake.received.length;
  const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [] }, { authorization: `Bearer ${k.key}` });
  assert.deepEqual([r.status, r.json], [502, { error: 'Provider address is not resolved; re-resolve the LLM proxy' }]);
  assert.equal(p.fake.received.length, n);
  const rr = await e.t.request('POST', `/api/llm/${p.id}/re-resolve`, { token: e.user.pat });
  assert.equal(rr.status, 200, rr.text);
  assert.equal((await rawLlm(`${p.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [] }, { authorization: `Bearer ${k.key}` })).status, 200);
});
