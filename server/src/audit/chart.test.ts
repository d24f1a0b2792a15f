import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../http/errors.ts';
import { chartRange, fillBuckets, MAX_BUCKETS, OUTCOME_OF } from './chart.ts';

const H = 3600;
const D = 86400;
const T0 = 1_700_000_000 - (1_700_000_000 % D); // a UTC midnight

test('default ranges: the last 24 hours / 30 days, counting the current bucket', () => {
  const now = T0 + 5 * H + 17 * 60;
  assert.deepEqual(chartRange('hour', now), { start: T0 + 5 * H - 23 * H, end: T0 + 6 * H, size: H });
  assert.deepEqual(chartRange('day', now), { start: T0 - 29 * D, end: T0 + D, size: D });
});

test('from and to widen to whole UTC buckets', () => {
  assert.deepEqual(chartRange('hour', 0, T0 + 90 * 60, T0 + 3 * H + 1), { start: T0 + H, end: T0 + 4 * H, size: H });
  assert.deepEqual(chartRange('day', 0, T0 + 1, T0 + D - 1), { start: T0, end: T0 + D, size: D });
  // Only `from`: up to now.
  assert.deepEqual(chartRange('hour', T0 + 2 * H + 5, T0), { start: T0, end: T0 + 3 * H, size: H });
});

test('from after to, and more than MAX_BUCKETS buckets, are 400s', () => {
  const is400 = (m: RegExp) => (e: unknown) => e instanceof HttpError && e.status === 400 && m.test(e.message);
  assert.throws(() => chartRange('hour', T0, T0 + 2 * H), is400(/^from: must not be after to$/));
  assert.throws(() => chartRange('hour', 0, T0, T0 + MAX_BUCKETS * H), is400(/^range too large: at most 1000 hour buckets$/));
  assert.doesNotThrow(() => chartRange('hour', 0, T0, T0 + (MAX_BUCKETS - 1) * H));
  assert.throws(() => chartRange('day', 0, 0, MAX_BUCKETS * D), is400(/day buckets/));
});

test('fillBuckets zero-fills every bucket in order', () => {
  const range = chartRange('hour', 0, T0, T0 + 2 * H);
  const out = fillBuckets(range, new Map([[T0 + H, { allow: 2, deny: 1, error: 0 }]]));
  assert.deepEqual(out, [
    { ts: T0, allow: 0, deny: 0, error: 0 },
    { ts: T0 + H, allow: 2, deny: 1, error: 0 },
    { ts: T0 + 2 * H, allow: 0, deny: 0, error: 0 },
  ]);
});

test('block and deny count as deny; the gateway\'s specific outcomes count in their series; details do not count', () => {
  assert.equal(OUTCOME_OF.block, 'deny');
  assert.equal(OUTCOME_OF.deny, 'deny');
  assert.equal(OUTCOME_OF.allow, 'allow');
  assert.equal(OUTCOME_OF.error, 'error');
  assert.equal(OUTCOME_OF.ip_blocked, 'deny');
  assert.equal(OUTCOME_OF.rate_limited, 'deny');
  assert.equal(OUTCOME_OF.lambda_error, 'error');
  for (const detail of ['dlp_match', 'rate_limit_dryrun', 'api_request', 'pin_rejected', 'prompt_guard_hit']) assert.equal(OUTCOME_OF[detail], undefined, detail);
});

test('every outcome type is a plain identifier (they are inlined in SQL as constants)', () => {
  for (const type of Object.keys(OUTCOME_OF)) assert.match(type, /^[a-z_]+$/);
});
