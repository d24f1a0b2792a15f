// Provider timeouts (TOLLGATE_LLM_UPSTREAM_TIMEOUT_MS): a provider that does not start its answer gets the client a
// 504 and costs nothing; one that goes silent inside a stream ends the client's stream instead of holding it open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLlmKey, createLlmProxy, rawLlm, startLlmEnv, type LlmEnv } from '@tollgate/testkit/llm-kit.ts';

let e: LlmEnv;

before(async () => { e = await startLlmEnv({ env: { TOLLGATE_LLM_UPSTREAM_TIMEOUT_MS: '300' } }); });
after(async () => { await e.close(); });

/** Reasons of the proxy's error events, once every request so far has been accounted and written. */
async function errorReasons(llmId: string): Promise<string[]> {
  await e.t.flush();
  const rows = await e.t.app.services.db.query<{ details: { reason?: string } }>(`SELECT details FROM audit_events WHERE llm_uuid = $1 AND event_type = 'error' ORDER BY id`, [llmId]);
  return rows.map((r) => r.details.reason ?? '');
}

test('a provider that does not answer in time: 504 "Upstream timed out", an error event, nothing charged', async () => {
  const p = await createLlmProxy(e, 'openai', { budget: { period: 'daily', capUsd: 1, hardBlock: true } });
  const k = await createLlmKey(e, p);
  p.fake.override = () => true; // takes the request and never answers
  try {
    const started = Date.now();
    const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${k.key}` });
    assert.deepEqual([r.status, r.json], [504, { error: 'Upstream timed out' }]);
    assert.ok(Date.now() - started < 5000);
  } finally {
    p.fake.override = undefined;
  }
  assert.deepEqual(await errorReasons(p.id), ['upstream_timeout']);
  const d = await e.t.request('GET', `/api/llm/${p.id}/usage/daily?days=1`, { token: e.user.pat });
  assert.equal(d.body.rows.length, 0, 'a request that got no answer costs nothing');
  // The budget's reservation was released: the proxy still serves.
  const ok = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${k.key}` });
  assert.equal(ok.status, 200, ok.text);
});

test('a stream that goes silent is cut for the client; its one event is an error that still carries the usage', async () => {
  const p = await createLlmProxy(e, 'openai');
  const k = await createLlmKey(e, p);
  p.fake.override = (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}\n\n');
    return true; // and then nothing, the connection open
  };
  try {
    const started = Date.now();
    const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${k.key}` }).catch((err: Error) => ({ status: 0, text: String(err.cause ?? err) }));
    assert.ok(Date.now() - started < 5000, 'the stream does not hang');
    if (r.status === 200) {
      assert.match(r.text, /"Hel"/, 'what arrived before the silence reached the client');
      assert.doesNotMatch(r.text, /\[DONE\]/);
    }
  } finally {
    p.fake.override = undefined;
  }
  assert.deepEqual(await errorReasons(p.id), ['upstream_timeout']);
  const all = await e.t.app.services.db.query<{ event_type: string; details: Record<string, unknown> }>('SELECT event_type, details FROM audit_events WHERE llm_uuid = $1', [p.id]);
  assert.deepEqual(all.map((r) => r.event_type), ['error'], 'one outcome event, not an allow as well');
  assert.equal(all[0]!.details.streamed, true);
  assert.equal(all[0]!.details.aborted, 'upstream_timeout');
});
