// Token counts to cost. Money is counted in micro-cents (1e-6 cent) everywhere below the API so that small requests
// still add up; the API shows cents.
import type { ProviderId } from '@tollgate/contract';
import { PRICING_TABLES } from './tables.ts';
import type { ModelPrice, PricingTable } from './types.ts';

export interface TokenUsage {
  /** All prompt tokens, cached ones included. */
  inputTokens: number;
  /** The part of inputTokens served from the provider's prompt cache. */
  cachedInputTokens: number;
  /** The part of inputTokens written to the provider's prompt cache (Anthropic charges these above the input price). */
  cacheWriteInputTokens?: number;
  /** The part of cacheWriteInputTokens written with a 1-hour TTL (priced higher again). */
  cacheWrite1hInputTokens?: number;
  outputTokens: number;
}

export interface Priced {
  costMicroCents: number;
  pricingVersion: string;
  /** The table entry that priced the request (`*` when the model is unknown to the table). */
  priceKey: string;
}

export const MICRO_CENTS_PER_CENT = 1_000_000;
/** USD per million tokens to micro-cents per token: 100 cents per dollar, 1e6 micro-cents per cent, 1e6 tokens. */
const USD_PER_M_TO_MICRO_CENTS = 100;

/** The table in force at `atMs`: the latest one whose effectiveFromMs is not in the future. */
export function tableAt(atMs: number, tables: readonly PricingTable[] = PRICING_TABLES): PricingTable {
  let chosen = tables[0];
  for (const t of tables) if (t.effectiveFromMs <= atMs && (!chosen || t.effectiveFromMs >= chosen.effectiveFromMs)) chosen = t;
  if (!chosen) throw new Error('no pricing table');
  return chosen;
}

/** Strips what providers put around a model name (Gemini's `models/`, OpenAI fine-tune `ft:` wrappers). */
export function normalizeModel(model: string): string {
  let m = model.trim().toLowerCase();
  if (m.startsWith('models/')) m = m.slice('models/'.length);
  if (m.startsWith('ft:')) m = m.slice(3).split(':')[0] ?? m;
  return m;
}

/** The longest key that `m` starts with, followed by a family separator (`-`, `:` or `@`); never `*`. */
function longestFamilyPrefix(models: Record<string, ModelPrice>, m: string): string | undefined {
  let best: string | undefined;
  for (const key of Object.keys(models)) {
    if (key === '*' || !m.startsWith(key)) continue;
    const next = m.charAt(key.length);
    if ((next === '-' || next === ':' || next === '@') && (!best || key.length > best.length)) best = key;
  }
  return best;
}

/** Exact name first, then the longest family prefix followed by a separator, then the provider's `*` entry. */
export function findPrice(models: Record<string, ModelPrice>, model: string): { key: string; price: ModelPrice } | undefined {
  const m = normalizeModel(model);
  // Own keys only: a client's model name such as `__proto__` or `constructor` must not find Object.prototype's.
  const exact = Object.hasOwn(models, m) ? models[m] : undefined;
  if (exact) return { key: m, price: exact };
  const best = longestFamilyPrefix(models, m);
  if (best) return { key: best, price: models[best]! };
  const fallback = models['*'];
  return fallback ? { key: '*', price: fallback } : undefined;
}

export function costOf(price: ModelPrice, u: TokenUsage): number {
  const input = Math.max(0, u.inputTokens);
  const cached = Math.min(Math.max(0, u.cachedInputTokens), input);
  const written = Math.min(Math.max(0, u.cacheWriteInputTokens ?? 0), input - cached);
  const writtenHour = Math.min(Math.max(0, u.cacheWrite1hInputTokens ?? 0), written);
  const uncached = input - cached - written;
  const writePrice = price.cacheWriteInput ?? price.input;
  const usd = uncached * price.input + cached * (price.cachedInput ?? price.input) + (written - writtenHour) * writePrice
    + writtenHour * (price.cacheWrite1hInput ?? writePrice) + Math.max(0, u.outputTokens) * price.output;
  return Math.round(usd * USD_PER_M_TO_MICRO_CENTS);
}

// Lookups per (table, provider, model) are memoised: the request path prices every request twice (estimate, actual).
const lookups = new WeakMap<PricingTable, Map<string, { key: string; price: ModelPrice } | undefined>>();

function lookup(table: PricingTable, provider: ProviderId, model: string): { key: string; price: ModelPrice } | undefined {
  let m = lookups.get(table);
  if (!m) lookups.set(table, (m = new Map()));
  const k = `${provider}|${model}`;
  if (m.has(k)) return m.get(k);
  const found = findPrice(table.providers[provider] ?? {}, model);
  if (m.size < 10_000) m.set(k, found);
  return found;
}

export function priceUsage(provider: ProviderId, model: string, u: TokenUsage, atMs: number): Priced {
  return priceUsageIn(tableAt(atMs), provider, model, u);
}

/** Prices against one given table (tests pass their own tables through tableAt). */
export function priceUsageIn(table: PricingTable, provider: ProviderId, model: string, u: TokenUsage): Priced {
  const found = lookup(table, provider, model);
  if (!found) return { costMicroCents: 0, pricingVersion: table.version, priceKey: '' };
  return { costMicroCents: costOf(found.price, u), pricingVersion: table.version, priceKey: found.key };
}

/** Micro-cents to the cents the API shows (6 decimals kept: clients trust costCents and never recompute it). */
export function microToCents(micro: number): number {
  return Math.round(micro) / MICRO_CENTS_PER_CENT;
}
