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

test('a stream whose first token is slow: the client has the status and headers at once, before the first chunk', async () => {
  let release!: () => void;
  const firstToken = new Promise<void>((r) => { release = r; });
  p.fake.override = (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    void firstToken.then(() => {
      res.write('data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n');
      res.end('data: [DONE]\n\n');
    });
    return true;
  };
  try {
    const answer = fetch(`${p.base}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    // fetch resolves with the headers; the first chunk is held back until they have arrived.
    const r = await Promise.race([answer, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no headers while the first token was pending')), 5000))]);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    release();
    assert.match(await r.text(), /"Hi"[\s\S]*\[DONE\]/);
  } finally {
    release();
    p.fake.override = undefined;
  }
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
