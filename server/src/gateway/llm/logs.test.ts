import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Clock } from '../../services.ts';
import { createLlmKey, createLlmProxy, patchLlm, rawLlm, startLlmEnv, type LlmEnv, type LlmProxyUnderTest } from '@tollgate/testkit/llm-kit.ts';

let now = Date.parse('2025-09-01T12:00:00Z');
const clock: Clock = { nowMs: () => now };
let e: LlmEnv;

before(async () => { e = await startLlmEnv({ clock }); });
after(async () => { await e.close(); });

const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

async function listLogs(p: LlmProxyUnderTest, query = '') {
  const r = await e.t.request('GET', `/api/llm/${p.id}/logs${query}`, { token: e.user.pat });
  assert.equal(r.status, 200, r.text);
  return r.body.logs as Array<Record<string, unknown>>;
}

async function hasUsage(p: LlmProxyUnderTest): Promise<boolean> {
  return (await e.t.app.services.db.query('SELECT 1 FROM llm_usage_daily WHERE llm_id = $1', [p.id])).length > 0;
}

async function logRows(p: LlmProxyUnderTest) {
  return e.t.app.services.db.query<Record<string, unknown>>('SELECT * FROM llm_conversation_logs WHERE llm_id = $1', [p.id]);
}

test('no conversation log is written when logConversations is false', async () => {
  const p = await createLlmProxy(e, 'openai');
  const k = await createLlmKey(e, p);
  await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'secret question' }] }, bearer(k.key));
  await e.t.flush();
  // usage is recorded (so the request was accounted) ...
  assert.ok(await hasUsage(p));
  // ... and no log with it
  assert.equal((await logRows(p)).length, 0);
  assert.deepEqual(await listLogs(p), []);
});

test('logs are sealed at rest, listed most recent first with a before cursor, and decrypted on read', async () => {
  const p = await createLlmProxy(e, 'openai', { logConversations: true });
  const k = await createLlmKey(e, p);
  const client = new OpenAI({ apiKey: k.key, baseURL: `${p.base}/v1`, maxRetries: 0 });
  for (let i = 1; i <= 3; i++) {
    now += 1000;
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `tell me the magic word ${i}` }] });
  }
  now += 1000;
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'stream please' }] });
  for await (const _ of stream) { /* drain */ }
  await e.t.flush();
  const logs = await listLogs(p);
  assert.equal(logs.length, 4);
  assert.deepEqual(logs.map((l) => l.requestSummary), ['stream please', 'tell me the magic word 3', 'tell me the magic word 2', 'tell me the magic word 1']);
  assert.equal(logs[0]!.responseSummary, 'Hello! How can I help?');
  assert.equal(logs[1]!.responseSummary, 'The capital of France is Paris.');
  assert.equal(logs[1]!.model, 'gpt-4o-mini');
  assert.equal(logs[1]!.tokens, 1117 + 46);
  assert.equal(typeof logs[1]!.costCents, 'number');
  assert.equal(logs[1]!.timestamp, Math.floor(Date.parse('2025-09-01T12:00:03Z') / 1000));

  const page = await listLogs(p, `?limit=2&before=${logs[1]!.id}`);
  assert.deepEqual(page.map((l) => l.id), [logs[2]!.id, logs[3]!.id]);
  assert.equal((await listLogs(p, '?limit=1')).length, 1);
  assert.equal((await e.t.request('GET', `/api/llm/${p.id}/logs?before=nope`, { token: e.user.pat })).status, 400);

  const full = await e.t.request('GET', `/api/llm/${p.id}/logs/${logs[1]!.id}`, { token: e.user.pat });
  assert.equal(full.status, 200);
  assert.match(full.body.prompt, /tell me the magic word 3/);
  assert.equal(full.body.completion, 'The capital of France is Paris.');
  assert.equal((await e.t.request('GET', `/api/llm/${p.id}/logs/00000000-0000-4000-8000-000000000000`, { token: e.user.pat })).status, 404);

  // Without the master key the database shows nothing of the conversation.
  const rows = await logRows(p);
  const dump = JSON.stringify(rows);
  assert.doesNotMatch(dump, /magic word|Paris|stream please|Hello/);
  for (const r of rows) for (const col of ['prompt_enc', 'completion_enc', 'summary_enc']) assert.match(String(r[col]), /^v1\./);
});

test('logs expire after 7 days (reads ignore them, the purge job deletes them); bulk delete by timestamp or all', async () => {
  now = Date.parse('2025-10-01T00:00:00Z');
  const p = await createLlmProxy(e, 'anthropic', { logConversations: true });
  const k = await createLlmKey(e, p);
  const ask = (content: string) => rawLlm(`${p.base}/v1/messages`, { model: 'claude-sonnet-4-20250514', max_tokens: 64, messages: [{ role: 'user', content }] }, { 'x-api-key': k.key });
  await ask('old one');
  now = Date.parse('2025-10-05T00:00:00Z');
  await ask('newer one');
  await e.t.flush();
  assert.equal((await listLogs(p)).length, 2);
  now = Date.parse('2025-10-08T00:00:01Z'); // the first log is now older than 7 days
  assert.deepEqual((await listLogs(p)).map((l) => l.requestSummary), ['newer one']);
  const { llmLogPurgeJob } = await import('../../jobs/llm-log-purge.ts');
  await llmLogPurgeJob.run(e.t.app.services);
  assert.equal((await logRows(p)).length, 1);

  const bad = await e.t.request('DELETE', `/api/llm/${p.id}/logs?before=yesterday`, { token: e.user.pat });
  assert.deepEqual([bad.status, bad.body], [400, { error: 'before must be a YYYYMMDD integer' }]);
  assert.equal((await e.t.request('DELETE', `/api/llm/${p.id}/logs`, { token: e.user.pat })).status, 400);
  const none = await e.t.request('DELETE', `/api/llm/${p.id}/logs?before=${Date.parse('2025-10-04T00:00:00Z') / 1000}`, { token: e.user.pat });
  assert.deepEqual(none.body, { deleted: 0 });
  const all = await e.t.request('DELETE', `/api/llm/${p.id}/logs?all=true`, { token: e.user.pat });
  assert.deepEqual(all.body, { deleted: 1 });
});

test('turning logConversations off deletes the logs (spec: they exist only while it is true) and stops logging at once', async () => {
  now = Date.parse('2025-11-01T00:00:00Z');
  const p = await createLlmProxy(e, 'mistral', { logConversations: true });
  const k = await createLlmKey(e, p);
  await rawLlm(`${p.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'logged' }] }, bearer(k.key));
  await e.t.flush();
  assert.equal((await logRows(p)).length, 1);
  await patchLlm(e, p, { logConversations: false });
  assert.equal((await logRows(p)).length, 0, 'the stored logs are gone');
  assert.deepEqual((await listLogs(p)), []);
  await rawLlm(`${p.base}/v1/chat/completions`, { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'x' }] }, bearer(k.key));
  await e.t.flush();
  assert.ok(await hasUsage(p));
  assert.equal((await logRows(p)).length, 0);
});

test('another user cannot read or delete these logs', async () => {
  const p = await createLlmProxy(e, 'openai', { logConversations: true });
  const other = await e.t.createUser();
  assert.equal((await e.t.request('GET', `/api/llm/${p.id}/logs`, { token: other.pat })).status, 404);
  assert.equal((await e.t.request('DELETE', `/api/llm/${p.id}/logs?all=true`, { token: other.pat })).status, 404);
});

test('the logged prompt is whole even when it is larger than the owner\'s LLM body cap', async () => {
  const owner = await e.t.createUser();
  await e.t.app.services.db.query(`UPDATE consumers SET tags = array_append(tags, 'private:permissions:llm:max_resp_body_kb:1') WHERE id = $1`, [owner.consumerId]);
  const p = await createLlmProxy(e, 'openai', { logConversations: true }, owner);
  const k = await createLlmKey(e, p, ['*'], owner);
  const long = `${'lorem ipsum '.repeat(400)}END-OF-PROMPT`;
  const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: long }] }, bearer(k.key));
  assert.equal(r.status, 200, r.text);
  await e.t.flush();
  const [entry] = (await e.t.request('GET', `/api/llm/${p.id}/logs`, { token: owner.pat })).body.logs as Array<{ id: string }>;
  assert.ok(entry, 'the request was logged');
  const full = await e.t.request('GET', `/api/llm/${p.id}/logs/${entry.id}`, { token: owner.pat });
  assert.equal(full.status, 200, full.text);
  assert.ok(full.body.prompt.length > 4096, `prompt of ${full.body.prompt.length} characters`);
  assert.match(full.body.prompt, /END-OF-PROMPT/);
});

test('a prompt of a few MB is logged whole and byte for byte, next to small logs of the same flush', async () => {
  const p = await createLlmProxy(e, 'openai', { logConversations: true });
  const k = await createLlmKey(e, p);
  // Over the size sealed in pieces (100,000), with multi-byte characters and surrogate pairs on many piece boundaries.
  const content = `${'naïve 🌍 日本 '.repeat(60_000)}END`;
  const sent = [
    rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'small one' }] }, bearer(k.key)),
    rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content }] }, bearer(k.key)),
    rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'small two' }] }, bearer(k.key)),
  ];
  for (const r of await Promise.all(sent)) assert.equal(r.status, 200, r.text);
  await e.t.flush();
  const logs = await listLogs(p);
  assert.equal(logs.length, 3);
  const large = logs.find((l) => String(l.requestSummary).startsWith('naïve'));
  assert.ok(large, 'the large request was logged');
  const full = await e.t.request('GET', `/api/llm/${p.id}/logs/${large.id}`, { token: e.user.pat });
  assert.equal(full.status, 200);
  assert.equal(JSON.parse(full.body.prompt).messages[0].content, content);
  const rows = await logRows(p);
  for (const r of rows) assert.match(String(r.prompt_enc), /^v1\.[\w-]{8}\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
  assert.ok(rows.some((r) => String(r.prompt_enc).length > 1_000_000));
});
