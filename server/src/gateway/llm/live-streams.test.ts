// The in-process registry of streams in flight: which are recorded, when, and what an end reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { LiveStreams, type CheckpointRow, type StreamRecord } from './live-streams.ts';

const record = (outputTokens: number): StreamRecord => ({
  userId: null, llmId: 'p1', credentialId: 'cred-1', clientIp: '127.0.0.1', model: 'gpt-4o-mini', requestedModel: undefined,
  pricingVersion: 'test', startMs: 0, details: { status: 200, endpoint: 'chat' }, hold: undefined, estimated: false, costMicro: 0,
  usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens },
});

test('only streams that have run for the minimum age are recorded, as they are now; an end says whether a record may exist', async () => {
  const streams = new LiveStreams(60_000, () => undefined);
  let out = 1;
  const old = streams.begin(() => record(out));
  await sleep(60);
  const young = streams.begin(() => record(99));
  out = 5;
  const rows = streams.rows(50);
  assert.deepEqual(rows.map((r) => [r.id, r.record.usage.outputTokens]), [[old.id, 5]]);
  assert.equal(old.checkpointed, true);
  assert.equal(young.checkpointed, false);
  assert.equal(young.end(), false, 'a stream never recorded ends on the plain accounting path');
  assert.equal(old.end(), true, 'a recorded stream ends through the writer, which deletes its record');
  assert.deepEqual(streams.rows(), [], 'an ended stream is never recorded again');
  streams.close();
});

test('the timer writes the live streams every interval and stops once none is live', async () => {
  const written: CheckpointRow[][] = [];
  const streams = new LiveStreams(20, (rows) => written.push(rows));
  const s = streams.begin(() => record(3));
  for (let i = 0; i < 200 && written.length < 2; i++) await sleep(10);
  assert.ok(written.length >= 2 && written.every((rows) => rows.length === 1 && rows[0]!.id === s.id));
  s.end();
  const before = written.length;
  await sleep(100);
  assert.equal(written.length, before, 'nothing is written once no stream is live');
  streams.close();
});
