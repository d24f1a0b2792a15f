import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLlmKey, createLlmProxy, rawLlm, startLlmEnv, type LlmEnv, type LlmProxyUnderTest } from '@tollgate/testkit/llm-kit.ts';
import type { TestUser } from '@tollgate/testkit/harness.ts';

let e: LlmEnv;

before(async () => { e = await startLlmEnv(); });
after(async () => { await e.close(); });

/** Today's usage rows of the proxy, once every request so far has been accounted and written. */
async function rows(p: LlmProxyUnderTest, owner: TestUser = e.user) {
  await e.t.flush();
  const r = await e.t.request('GET', `/api/llm/${p.id}/usage/daily?days=1`, { token: owner.pat });
  assert.equal(r.status, 200, r.text);
  return r.body.rows as Array<Record<string, number | string>>;
}

test('usage from SSE streams, cached input included, for every provider', async () => {
  const cases = [
    { provider: 'openai', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }, want: [1300, 1152, 8] },
    { provider: 'anthropic', path: '/v1/messages', body: { model: 'claude-sonnet-4-20250514', max_tokens: 9, stream: true, messages: [{ role: 'user', content: 'hi' }] }, want: [1049, 1024, 15] },
    { provider: 'gemini', path: '/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse', body: { contents: [{ parts: [{ text: 'hi' }] }] }, want: [9, 0, 14] },
    { provider: 'mistral', path: '/v1/chat/completions', body: { model: 'mistral-small-latest', stream: true, messages: [{ role: 'user', content: 'hi' }] }, want: [8, 0, 4] },
  ] as const;
  for (const c of cases) {
    const p = await createLlmProxy(e, c.provider);
    const k = await createLlmKey(e, p);
    const r = await rawLlm(`${p.base}${c.path}`, c.body, { authorization: `Bearer ${k.key}` });
    assert.equal(r.status, 200, `${c.provider}: ${r.text}`);
    const [row] = await rows(p);
    assert.deepEqual([row!.inputTokens, row!.cachedInputTokens, row!.outputTokens], c.want, c.provider);
    assert.equal(row!.estimatedRequests, 0);
    assert.ok(Number(row!.costCents) > 0);
    assert.equal(row!.pricingVersion, '2025-08-01');
  }
});

test('past the owner LLM body cap, tokens are estimated as characters / 4 and the response is untouched', async () => {
  const owner = await e.t.createUser();
  await e.t.app.services.db.query(`UPDATE consumers SET tags = array_append(tags, 'private:permissions:llm:max_resp_body_kb:1') WHERE id = $1`, [owner.consumerId]);
  const p = await createLlmProxy(e, 'openai', {}, owner);
  const k = await createLlmKey(e, p, ['*'], owner);
  const long = 'word '.repeat(1000); // 5000 characters of completion, far past 1 KB
  const answer = JSON.stringify({ id: 'c', object: 'chat.completion', model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: long }, finish_reason: 'stop' }], usage: { prompt_tokens: 7, completion_tokens: 1000 } });
  p.fake.override = (_r, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    return true;
  };
  try {
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'talk' }] };
    const r = await rawLlm(`${p.base}/v1/chat/completions`, body, { authorization: `Bearer ${k.key}` });
    assert.equal(r.text, answer, 'the client gets every byte');
    const [row] = await rows(p, owner);
    assert.ok(row, 'the request has its usage row');
    assert.equal(row.estimatedRequests, 1);
    assert.equal(row.outputTokens, Math.ceil(Buffer.byteLength(answer) / 4));
    assert.equal(row.inputTokens, Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 4));
  } finally {
    p.fake.override = undefined;
  }
});

test('a stream past the cap is forwarded whole and estimated', async () => {
  const owner = await e.t.createUser();
  await e.t.app.services.db.query(`UPDATE consumers SET tags = array_append(tags, 'private:permissions:llm:max_resp_body_kb:1') WHERE id = $1`, [owner.consumerId]);
  const p = await createLlmProxy(e, 'mistral', {}, owner);
  const k = await createLlmKey(e, p, ['*'], owner);
  const events = Array.from({ length: 40 }, (_, i) => `data: {"id":"x","object":"chat.completion.chunk","model":"mistral-small-latest","choices":[{"index":0,"delta":{"content":"token${i} "}}]}\n\n`);
  const wire = events.join('') + 'data: {"id":"x","object":"chat.completion.chunk","model":"mistral-small-latest","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":40}}\n\ndata: [DONE]\n\n';
  p.fake.override = async (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < wire.length; i += 300) res.write(wire.slice(i, i + 300));
    res.end();
    return true;
  };
  try {
    const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'mistral-small-latest', stream: true, messages: [] }, { authorization: `Bearer ${k.key}` });
    assert.equal(r.text, wire);
    const [row] = await rows(p, owner);
    assert.ok(row, 'the request has its usage row');
    assert.equal(row.estimatedRequests, 1);
    assert.equal(row.outputTokens, Math.ceil(Buffer.byteLength(wire) / 4));
  } finally {
    p.fake.override = undefined;
  }
});

test('upstream errors are relayed as they are and not charged; an unreachable upstream is 502', async () => {
  const p = await createLlmProxy(e, 'openai');
  const k = await createLlmKey(e, p);
  p.fake.override = (_r, res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end('{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}');
    return true;
  };
  try {
    const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [] }, { authorization: `Bearer ${k.key}` });
    assert.equal(r.status, 429);
    assert.equal(r.headers.get('retry-after'), '7');
    assert.equal(r.json.error.code, 'rate_limit_exceeded');
  } finally {
    p.fake.override = undefined;
  }
  assert.equal((await rows(p)).length, 0, 'a refused request costs nothing');
});

test('a model name with a NUL character cannot stop usage accounting for everyone else', async () => {
  const p = await createLlmProxy(e, 'openai', { logConversations: true });
  const k = await createLlmKey(e, p);
  const odd = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o\u0000x', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${k.key}` });
  assert.ok(odd.status < 500, odd.text);
  const ok = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${k.key}` });
  assert.equal(ok.status, 200, ok.text);
  const got = await rows(p);
  assert.ok(got.some((r) => r.model === 'gpt-4o-mini'), JSON.stringify(got));
});
