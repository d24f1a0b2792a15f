// The LLM accounting writer against the real database: a record the database refuses is dropped alone and never
// holds back the usage of everyone else; the logs waiting for a flush are bounded in bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createLogger, silentLogger } from '../../log.ts';
import { must, startTestApp } from '@tollgate/testkit/harness.ts';
import { AccountingWriter } from './accounting-writer.ts';

test('a usage record the database refuses is dropped alone; the rest of the flush is written', async () => {
  const t = await startTestApp({ env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: 'http://127.0.0.1:9' } });
  try {
    const s = t.app.services;
    const u = await t.createUser();
    const { id: llmId } = must(await t.client(u.pat).call('POST /api/llm', { body: { name: 'chat', provider: 'openai' } }));
    const w = new AccountingWriter(s.db, s.secrets, silentLogger);
    const row = { day: 20261122, credentialId: 'k1', pricingVersion: '2025-08-01', requests: 1, inputTokens: 10, cachedInputTokens: 0, outputTokens: 5, estimatedRequests: 0, costMicroCents: 100 };
    w.addUsage({ ...row, llmId, model: 'good-1' });
    w.addUsage({ ...row, llmId: 'not-a-uuid', model: 'refused' });
    w.addUsage({ ...row, llmId, model: 'good-2' });
    await w.flush();
    const rows = await s.db.query<{ model: string }>('SELECT model FROM llm_usage_daily WHERE llm_id = $1 ORDER BY model', [llmId]);
    assert.deepEqual(rows.map((r) => r.model), ['good-1', 'good-2']);
    w.addUsage({ ...row, llmId, model: 'later' });
    await w.flush();
    assert.equal((await s.db.query('SELECT 1 FROM llm_usage_daily WHERE llm_id = $1', [llmId])).length, 3, 'nothing is stuck');
    await w.close();
  } finally {
    await t.close();
  }
});

test('logs waiting for a flush are bounded in bytes: beyond the bound a log is dropped and the drop logged', async () => {
  const t = await startTestApp({ env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: 'http://127.0.0.1:9' } });
  try {
    const s = t.app.services;
    const u = await t.createUser();
    const { id: llmId } = must(await t.client(u.pat).call('POST /api/llm', { body: { name: 'chat', provider: 'openai', logConversations: true } }));
    const lines: string[] = [];
    const w = new AccountingWriter(s.db, s.secrets, createLogger({}, 'warn', (line) => lines.push(line)), { intervalMs: 3_600_000, maxLogBytes: 1_000_000 });
    const log = (n: number) => ({
      id: randomUUID(), llmId, credentialId: 'k1', tsMs: n, model: 'gpt-4o', status: 200, streamed: false, inputTokens: 1, cachedInputTokens: 0,
      outputTokens: 1, costMicroCents: 1, pricingVersion: '2025-08-01', prompt: Buffer.alloc(400_000, `prompt ${n} `), completion: `answer ${n}`,
      requestSummary: `q${n}`, responseSummary: `a${n}`,
    });
    for (const n of [1, 2, 3]) w.addLog(log(n));
    await w.flush();
    const stored = async () => (await s.db.query<{ ts_ms: number }>('SELECT ts_ms FROM llm_conversation_logs WHERE llm_id = $1 ORDER BY ts_ms', [llmId])).map((r) => Number(r.ts_ms));
    assert.deepEqual(await stored(), [1, 2], 'the third would have passed the bound');
    assert.equal(lines.filter((l) => l.includes('records dropped')).length, 1, lines.join('\n'));
    assert.match(lines.find((l) => l.includes('records dropped'))!, /"dropped":1/);
    w.addLog(log(4));
    await w.flush();
    assert.deepEqual(await stored(), [1, 2, 4], 'a flush frees the room');
    await w.close();
  } finally {
    await t.close();
  }
});
