import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { createLlmKey, createLlmProxy, startLlmEnv, type LlmEnv, type LlmProxyUnderTest } from '@tollgate/testkit/llm-kit.ts';

let e: LlmEnv;
let p: LlmProxyUnderTest;
let key: string;

before(async () => {
  e = await startLlmEnv();
  p = await createLlmProxy(e, 'anthropic');
  key = (await createLlmKey(e, p)).key;
});
after(async () => { await e.close(); });

test('the official Anthropic SDK (client key in x-api-key) works through the proxy; the upstream gets only the provider key', async () => {
  const client = new Anthropic({ apiKey: key, baseURL: p.base, maxRetries: 0 });
  const msg = await client.messages.create({ model: 'claude-sonnet-4-20250514', max_tokens: 256, messages: [{ role: 'user', content: 'Hello' }] });
  assert.equal(msg.content[0]?.type === 'text' ? msg.content[0].text : '', 'Hello! How can I help you today?');
  const got = p.fake.last();
  assert.equal(got.path, '/v1/messages');
  assert.equal(got.headers['x-api-key'], p.fake.providerKey);
  assert.equal(got.headers.authorization, undefined);
  assert.ok(!JSON.stringify(got.headers).includes(key));
  assert.ok(got.headers['anthropic-version'], 'provider headers the SDK sends are forwarded');
});

test('the client key may also come as Authorization Bearer (the spec channel)', async () => {
  const client = new Anthropic({ authToken: key, apiKey: null, baseURL: p.base, maxRetries: 0 });
  const msg = await client.messages.create({ model: 'claude-3-5-haiku-latest', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
  assert.equal(msg.type, 'message');
  assert.equal(p.fake.last().headers.authorization, undefined);
  assert.equal(p.fake.last().headers['x-api-key'], p.fake.providerKey);
});

test('streaming messages through the SDK arrive event by event', async () => {
  const client = new Anthropic({ apiKey: key, baseURL: p.base, maxRetries: 0 });
  const stream = client.messages.stream({ model: 'claude-sonnet-4-20250514', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
  const texts: string[] = [];
  stream.on('text', (t) => texts.push(t));
  const final = await stream.finalMessage();
  assert.deepEqual(texts, ['Hello', '! Nice to meet you.']);
  assert.equal(final.usage.output_tokens, 15);
});

test('a wrong key in x-api-key is refused with 401', async () => {
  const client = new Anthropic({ apiKey: 'tgk_nope', baseURL: p.base, maxRetries: 0 });
  await assert.rejects(client.messages.create({ model: 'claude-sonnet-4-20250514', max_tokens: 1, messages: [] }), (err: { status?: number }) => err.status === 401);
});
