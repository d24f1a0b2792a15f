import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capMicroCents, dayNumber, rollsOverAt, windowAt } from './windows.ts';

const at = (iso: string) => Date.parse(iso);

test('daily windows roll over at UTC midnight', () => {
  const w = windowAt('daily', at('2025-03-14T23:59:59.999Z'));
  assert.equal(w.tag, 'daily:2025-03-14');
  assert.equal(rollsOverAt(w), at('2025-03-15T00:00:00Z') / 1000);
  assert.equal(windowAt('daily', at('2025-03-15T00:00:00Z')).tag, 'daily:2025-03-15');
});

test('weekly windows start on UTC Monday', () => {
  // 2025-03-16 is a Sunday, 2025-03-17 a Monday.
  assert.equal(windowAt('weekly', at('2025-03-16T23:59:59Z')).tag, 'weekly:2025-03-10');
  const w = windowAt('weekly', at('2025-03-17T00:00:00Z'));
  assert.equal(w.tag, 'weekly:2025-03-17');
  assert.equal(rollsOverAt(w), at('2025-03-24T00:00:00Z') / 1000);
  assert.equal(windowAt('weekly', at('2025-03-12T12:00:00Z')).tag, 'weekly:2025-03-10');
});

test('monthly windows roll over on UTC day 1, across years', () => {
  const w = windowAt('monthly', at('2024-12-31T23:59:59Z'));
  assert.equal(w.tag, 'monthly:2024-12');
  assert.equal(rollsOverAt(w), at('2025-01-01T00:00:00Z') / 1000);
  assert.equal(windowAt('monthly', at('2025-01-01T00:00:00Z')).tag, 'monthly:2025-01');
  assert.equal(rollsOverAt(windowAt('monthly', at('2024-02-10T00:00:00Z'))), at('2024-03-01T00:00:00Z') / 1000);
});

test('fixed windows never roll over', () => {
  assert.deepEqual(windowAt('fixed', at('2025-03-14T10:00:00Z')), { tag: 'fixed', startMs: 0, endMs: 0 });
  assert.equal(windowAt('fixed', at('2030-01-01T00:00:00Z')).tag, 'fixed');
  assert.equal(rollsOverAt(windowAt('fixed', Date.now())), 0);
});

test('day numbers and caps', () => {
  assert.equal(dayNumber(at('2025-03-04T23:00:00Z')), 20250304);
  assert.equal(capMicroCents({ period: 'daily', capUsd: 1.5, hardBlock: true }), 150_000_000);
  assert.equal(capMicroCents({ period: 'daily', capUsd: 0, hardBlock: true }), 0);
});
