// The LLM accounting writer against the real database: a record the database refuses is dropped alone and never
// holds back the usage of everyone else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../log.ts';
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
