// Records of streams in flight against the real database: a stream that ends is accounted once with its record gone,
// a stale record is charged once however many gateways sweep, and a gateway that was only cut off while its record
// was recovered adds only the rest, with no second event. (test/faults/gateway-kill.test.ts kills real processes.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BudgetLedger } from '../../budgets/ledger.ts';
import { silentLogger } from '../../log.ts';
import { must, startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';
import { AccountingWriter } from './accounting-writer.ts';
import { LiveStreams, type StreamRecord } from './live-streams.ts';
import { StreamRecovery } from './stream-recovery.ts';
import type { StreamEnd } from './stream-checkpoints.ts';

async function setup(t: TestApp) {
  const s = t.app.services;
  const u = await t.createUser();
  const { id: llmId } = must(await t.client(u.pat).call('POST /api/llm', { body: { name: 'chat', provider: 'openai' } }));
  const writer = new AccountingWriter(s.db, s.secrets, silentLogger);
  const ledger = new BudgetLedger(s.state, async () => 0, silentLogger);
  const record = (outputTokens: number): StreamRecord => ({
    userId: u.userId, llmId, credentialId: 'k1', clientIp: '127.0.0.1', model: 'gpt-4o', requestedModel: 'gpt-4o', pricingVersion: 'v1', startMs: Date.UTC(2026, 10, 25),
    details: { status: 200, endpoint: 'chat' }, hold: undefined, usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens }, estimated: true, costMicro: outputTokens * 100,
  });
  const end = (id: string, outputTokens: number): StreamEnd => ({
    checkpointId: id,
    usage: { llmId, day: 20261125, credentialId: 'k1', model: 'gpt-4o', pricingVersion: 'v1', requests: 1, inputTokens: 10, cachedInputTokens: 0, outputTokens, estimatedRequests: 0, costMicroCents: outputTokens * 100 },
    charges: [],
    event: { userId: u.userId, timestamp: 1, eventType: 'allow', clientIp: '127.0.0.1', llmUuid: llmId, details: { output_tokens: outputTokens } },
  });
  const state = async () => {
    const [usage] = await s.db.query<{ requests: number; output: number; cost: number }>(
      'SELECT coalesce(sum(requests), 0)::int AS requests, coalesce(sum(output_tokens), 0)::int AS output, coalesce(sum(cost_micro_cents), 0)::int AS cost FROM llm_usage_daily WHERE llm_id = $1', [llmId]);
    const events = await s.db.query<{ event_type: string; reason: string | null }>(`SELECT event_type, details->>'reason' AS reason FROM audit_events WHERE llm_uuid = $1 ORDER BY id`, [llmId]);
    const records = await s.db.query<{ recovered: boolean }>('SELECT recovered_ms IS NOT NULL AS recovered FROM llm_stream_checkpoints WHERE llm_id = $1', [llmId]);
    return { ...usage!, events: events.map((e) => `${e.event_type}${e.reason ? `:${e.reason}` : ''}`), records: records.map((r) => (r.recovered ? 'recovered' : 'live')) };
  };
  const streams = new LiveStreams(60_000, (rows) => writer.checkpoint(rows));
  /** Writes the live streams' records now; they are stale for a 10 ms orphan time once this resolves. */
  const checkpointNow = async () => {
    writer.checkpoint(streams.rows());
    await writer.flush();
    await new Promise((r) => setTimeout(r, 20));
  };
  const sweeper = (orphanMs = 10) => new StreamRecovery(s.db, ledger, { log: silentLogger, metrics: undefined }, orphanMs);
  const close = async () => {
    streams.close();
    await writer.close();
  };
  return { writer, record, end, state, streams, checkpointNow, sweeper, close };
}

/** Runs `fn` on a fresh app with an LLM proxy, closing both afterwards. */
async function withProxy(fn: (x: Awaited<ReturnType<typeof setup>>) => Promise<void>): Promise<void> {
  const t = await startTestApp();
  try {
    const x = await setup(t);
    await fn(x);
    await x.close();
  } finally {
    await t.close();
  }
}

test('a checkpointed stream that ends deletes its record in the transaction that accounts it; nothing is left to recover', () => withProxy(async ({ writer, record, end, state, streams, checkpointNow, sweeper }) => {
  let out = 3;
  const live = streams.begin(() => record(out));
  await checkpointNow();
  assert.deepEqual((await state()).records, ['live']);
  out = 7;
  writer.checkpoint(streams.rows()); // a record taken just before the end goes out in the same batch as the end
  assert.equal(live.end(), true);
  writer.addStreamEnd(end(live.id, 9));
  await writer.flush();
  assert.deepEqual(await state(), { requests: 1, output: 9, cost: 900, events: ['allow'], records: [] });
  assert.equal(await sweeper(0).sweep(), 0);
  assert.deepEqual((await state()).requests, 1);
}));

test('a stale record is charged once by gateways sweeping together; an upsert never revives it', () => withProxy(async ({ record, state, streams, checkpointNow, sweeper }) => {
  streams.begin(() => record(5));
  await checkpointNow();
  const sweepers = [1, 2, 3].map(() => sweeper());
  const charged = await Promise.all(sweepers.map((r) => r.sweep()));
  assert.deepEqual(charged.sort(), [0, 0, 1]);
  assert.deepEqual(await state(), { requests: 1, output: 5, cost: 500, events: ['error:gateway_lost'], records: ['recovered'] });
  await checkpointNow(); // the owner was only slow: its next record does not undo the recovery
  assert.equal(await sweepers[0]!.sweep(), 0);
  assert.deepEqual((await state()).records, ['recovered']);
}));

test('a gateway whose stream was recovered while it was cut off adds only what the recovery did not charge, and no second event', () => withProxy(async ({ writer, record, end, state, streams, checkpointNow, sweeper }) => {
  const live = streams.begin(() => record(4));
  await checkpointNow();
  assert.equal(await sweeper().sweep(), 1);
  live.end();
  writer.addStreamEnd(end(live.id, 11));
  await writer.flush();
  assert.deepEqual(await state(), { requests: 1, output: 11, cost: 1100, events: ['error:gateway_lost'], records: [] });
}));
