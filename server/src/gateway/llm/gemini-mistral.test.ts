import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLlmKey, createLlmProxy, rawLlm, startLlmEnv, type LlmEnv, type LlmProxyUnderTest } from './test-kit.ts';

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

test('unsupported endpoints are refused; read-only ones pass through', async () => {
  const r = await rawLlm(`${mis.base}/v1/files`, { purpose: 'x' }, { authorization: `Bearer ${misKey}` });
  assert.equal(r.status, 404);
  const g = await fetch(`${mis.base}/v1/models`, { headers: { authorization: `Bearer ${misKey}` } });
  assert.equal(g.status, 200);
  assert.equal(mis.fake.last().method, 'GET');
});

test('the PAT is never valid on a proxy URL', async () => {
  const r = await rawLlm(`${mis.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [] }, { authorization: `Bearer ${e.user.pat}` });
  assert.equal(r.status, 401);
});
