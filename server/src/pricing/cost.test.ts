import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findPrice, MICRO_CENTS_PER_CENT, microToCents, normalizeModel, priceUsage, priceUsageIn, tableAt } from './cost.ts';
import { PRICING_TABLES } from './tables.ts';
import type { PricingTable } from './types.ts';

test('every provider table has a * entry so unknown models are never free', () => {
  for (const t of PRICING_TABLES) {
    for (const [provider, models] of Object.entries(t.providers)) assert.ok(models['*'], `${t.version} ${provider}`);
  }
});

test('versions are unique and ordered by effectiveFromMs', () => {
  const versions = PRICING_TABLES.map((t) => t.version);
  assert.equal(new Set(versions).size, versions.length);
  for (let i = 1; i < PRICING_TABLES.length; i++) assert.ok(PRICING_TABLES[i]!.effectiveFromMs > PRICING_TABLES[i - 1]!.effectiveFromMs);
});

test('dated snapshots match their family; the longest family wins', () => {
  const openai = PRICING_TABLES[0]!.providers.openai;
  assert.equal(findPrice(openai, 'gpt-4o-2024-08-06')?.key, 'gpt-4o');
  assert.equal(findPrice(openai, 'gpt-4o-mini-2024-07-18')?.key, 'gpt-4o-mini');
  assert.equal(findPrice(openai, 'gpt-4o-mini')?.key, 'gpt-4o-mini');
  assert.equal(findPrice(openai, 'o3-mini')?.key, 'o3-mini');
  assert.equal(findPrice(openai, 'gpt-4oz')?.key, '*', 'a prefix without a separator is another model');
  assert.equal(findPrice(PRICING_TABLES[0]!.providers.anthropic, 'claude-sonnet-4-20250514')?.key, 'claude-sonnet-4');
  assert.equal(findPrice(PRICING_TABLES[0]!.providers.gemini, 'models/gemini-2.0-flash-001')?.key, 'gemini-2.0-flash');
  assert.equal(normalizeModel('ft:gpt-4o-mini:acme::abc123'), 'gpt-4o-mini');
});

test('cost: uncached input, cached input and output at their own prices, in micro-cents', () => {
  // gpt-4o-mini: 0.15 in, 0.075 cached, 0.60 out (USD / 1M tokens)
  const p = priceUsage('openai', 'gpt-4o-mini', { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 }, Date.now());
  // 600k * 0.15 + 400k * 0.075 + 100k * 0.6 = 0.09 + 0.03 + 0.06 USD = 18 cents
  assert.equal(p.costMicroCents, 18_000_000);
  assert.equal(microToCents(p.costMicroCents), 18);
  assert.equal(p.pricingVersion, PRICING_TABLES.at(-1)!.version);
  const small = priceUsage('openai', 'gpt-4o-mini', { inputTokens: 20, cachedInputTokens: 0, outputTokens: 10 }, Date.now());
  assert.equal(small.costMicroCents, 20 * 15 + 10 * 60, 'a tiny request still costs something');
  assert.equal(microToCents(small.costMicroCents), 0.0009);
});

test('a new table version applies from its effective instant only', () => {
  const base = PRICING_TABLES[0]!;
  const later: PricingTable = { ...base, version: 'test-next', effectiveFromMs: Date.parse('2030-01-01T00:00:00Z'),
    providers: { ...base.providers, openai: { ...base.providers.openai, 'gpt-4o-mini': { input: 1, output: 1 } } } };
  const tables = [base, later];
  assert.equal(tableAt(Date.parse('2029-12-31T23:59:59Z'), tables).version, base.version);
  assert.equal(tableAt(Date.parse('2030-01-01T00:00:00Z'), tables).version, 'test-next');
  const u = { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 0 };
  assert.equal(priceUsageIn(tableAt(Date.parse('2029-06-01T00:00:00Z'), tables), 'openai', 'gpt-4o-mini', u).costMicroCents, 15_000_000);
  assert.equal(priceUsageIn(tableAt(Date.parse('2030-06-01T00:00:00Z'), tables), 'openai', 'gpt-4o-mini', u).costMicroCents, 100_000_000);
});

test('cost: Anthropic prompt-cache writes at their own price (1.25 x input), reads at the cached price', () => {
  // claude-sonnet-4: 3 in, 0.30 cached read, 3.75 cache write, 15 out (USD / 1M tokens)
  const u = { inputTokens: 1_000_000, cachedInputTokens: 200_000, cacheWriteInputTokens: 300_000, outputTokens: 0 };
  const p = priceUsage('anthropic', 'claude-sonnet-4-20250514', u, Date.now());
  // 500k uncached x 3 + 200k x 0.30 + 300k x 3.75 = 1.5 + 0.06 + 1.125 USD = 268.5 cents
  assert.equal(p.costMicroCents, 268.5 * MICRO_CENTS_PER_CENT);
  // Of the writes, those to the 1-hour cache cost 2 x input: 100k of the 300k move from 3.75 to 6 USD / 1M.
  const hour = priceUsage('anthropic', 'claude-sonnet-4-20250514', { ...u, cacheWrite1hInputTokens: 100_000 }, Date.now());
  assert.equal(hour.costMicroCents, (268.5 + 100_000 * (6 - 3.75) / 1e6 * 100) * MICRO_CENTS_PER_CENT);
  // A provider without a cache-write price charges writes as plain input.
  const o = priceUsage('openai', 'gpt-4o-mini', { inputTokens: 1_000_000, cachedInputTokens: 0, cacheWriteInputTokens: 1_000_000, outputTokens: 0 }, Date.now());
  assert.equal(o.costMicroCents, priceUsage('openai', 'gpt-4o-mini', { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 0 }, Date.now()).costMicroCents);
});

test('Mistral Large 3 and its -latest alias are priced as Large 3, dated Large 2 names as Large 2', () => {
  const models = PRICING_TABLES[0]!.providers.mistral;
  assert.deepEqual(findPrice(models, 'mistral-large-latest')?.price, { input: 0.5, output: 1.5 });
  assert.deepEqual(findPrice(models, 'mistral-large-2512')?.price, { input: 0.5, output: 1.5 });
  assert.deepEqual(findPrice(models, 'mistral-large-2411')?.price, { input: 2, output: 6 });
});

test('a model named after an Object.prototype member is priced as an unknown model, never as NaN', () => {
  for (const model of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '__defineGetter__']) {
    for (const provider of ['openai', 'anthropic', 'gemini', 'mistral'] as const) {
      const p = priceUsage(provider, model, { inputTokens: 1000, cachedInputTokens: 0, outputTokens: 1000 }, Date.now());
      assert.equal(p.priceKey, '*', `${provider} ${model}`);
      assert.ok(Number.isFinite(p.costMicroCents) && p.costMicroCents > 0, `${provider} ${model}: ${p.costMicroCents}`);
    }
  }
});
