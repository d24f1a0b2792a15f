import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createPinnedAgent } from '../../net/pinned-dispatcher.ts';
import { fetchVia } from '@tollgate/testkit/undici-fetch.ts';
import { createLlmKey, createLlmProxy, startLlmEnv, type LlmEnv, type LlmProxyUnderTest } from '@tollgate/testkit/llm-kit.ts';

let e: LlmEnv;
let p: LlmProxyUnderTest;
let key: string;

before(async () => {
  e = await startLlmEnv();
  p = await createLlmProxy(e, 'openai');
  key = (await createLlmKey(e, p)).key;
});
after(async () => { await e.close(); });

const client = (apiKey = key) => new OpenAI({ apiKey, baseURL: `${p.base}/v1`, maxRetries: 0 });

test('the official OpenAI SDK works unchanged through the proxy; the provider key is injected and the client key never forwarded', async () => {
  const r = await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Capital of France?' }] });
  assert.equal(r.choices[0]?.message.content, 'The capital of France is Paris.');
  const got = p.fake.last();
  assert.equal(got.path, '/v1/chat/completions');
  assert.equal(got.headers.authorization, `Bearer ${p.fake.providerKey}`);
  assert.ok(!JSON.stringify(got.headers).includes(key), 'the client key reaches the upstream nowhere');
});

test('streaming chat completions arrive chunk by chunk, with usage requested from the provider', async () => {
  const stream = await client().chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  let text = '';
  let usage;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    usage = chunk.usage ?? usage;
  }
  assert.equal(text, 'Hello! How can I help?');
  assert.equal(usage?.prompt_tokens, 1300);
  assert.deepEqual(p.fake.last().json?.stream_options, { include_usage: true });
});

test('responses API and embeddings through the SDK', async () => {
  const r = await client().responses.create({ model: 'gpt-4.1', input: 'Tell me a story' });
  assert.match(r.output_text, /peaceful grove/);
  const emb = await client().embeddings.create({ model: 'text-embedding-3-small', input: 'hello' });
  assert.equal(emb.data[0]?.embedding.length, 3);
  assert.equal(emb.usage.prompt_tokens, 8);
});

test('a wrong client key is refused with 401 before anything reaches the provider', async () => {
  const n = p.fake.received.length;
  await assert.rejects(client('tgk_wrong').chat.completions.create({ model: 'gpt-4o', messages: [] }), (err: { status?: number }) => err.status === 401);
  assert.equal(p.fake.received.length, n);
});

test('the host route <id>.<proxy_domain> serves the same proxy (SDK base URL without the id prefix)', async () => {
  const gw = new URL(e.t.gateway);
  const host = `${p.id}.${e.t.config.proxyDomain}`;
  const agent = createPinnedAgent({ hostname: host, ip: gw.hostname, port: Number(gw.port) });
  try {
    const viaHost = new OpenAI({
      apiKey: key, baseURL: `http://${host}:${gw.port}/v1`, maxRetries: 0,
      fetch: fetchVia(agent),
    });
    const r = await viaHost.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.choices[0]?.message.content, 'The capital of France is Paris.');
    assert.equal(p.fake.last().path, '/v1/chat/completions');
  } finally {
    await agent.close();
  }
});
