// Shapes stored usage rows into the API's series: daily (one entry per UTC day of the range, zeros included) and
// monthly (one per UTC month), plus the stored rows themselves, each with its costCents and pricingVersion.
import { microToCents } from '../pricing/cost.ts';
import type { UsageRow } from './rows.ts';

export interface Totals {
  requests: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Requests whose tokens were estimated (characters / 4) because the provider's usage could not be read. */
  estimatedRequests: number;
  costCents: number;
  /** The pricing versions that priced these requests, oldest first; `pricingVersion` is the latest of them. */
  pricingVersions: string[];
  pricingVersion: string | null;
}

interface Acc {
  requests: number; inputTokens: number; cachedInputTokens: number; outputTokens: number; estimatedRequests: number; micro: number; versions: string[];
}

const empty = (): Acc => ({ requests: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, estimatedRequests: 0, micro: 0, versions: [] });

function add(a: Acc, r: UsageRow): void {
  a.requests += Number(r.requests);
  a.inputTokens += Number(r.input_tokens);
  a.cachedInputTokens += Number(r.cached_input_tokens);
  a.outputTokens += Number(r.output_tokens);
  a.estimatedRequests += Number(r.estimated_requests);
  a.micro += Number(r.cost_micro_cents);
  if (!a.versions.includes(r.pricing_version)) a.versions.push(r.pricing_version);
}

export function totalsOf(a: Acc): Totals {
  const versions = [...a.versions].sort();
  return {
    requests: a.requests, inputTokens: a.inputTokens, cachedInputTokens: a.cachedInputTokens, outputTokens: a.outputTokens,
    totalTokens: a.inputTokens + a.outputTokens, estimatedRequests: a.estimatedRequests, costCents: microToCents(a.micro),
    pricingVersions: versions, pricingVersion: versions.at(-1) ?? null,
  };
}

export function sumRows(rows: readonly UsageRow[]): Totals {
  const a = empty();
  for (const r of rows) add(a, r);
  return totalsOf(a);
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The first UTC day of a `days`-long range ending today, as YYYYMMDD. */
export function firstDayOf(nowMs: number, days: number): number {
  const d = new Date(nowMs);
  return Number(ymd(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - (days - 1))).replaceAll('-', ''));
}

/** The first UTC day of a `months`-long range ending this month, as YYYYMMDD. */
export function firstMonthDayOf(nowMs: number, months: number): number {
  const d = new Date(nowMs);
  return Number(ymd(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (months - 1), 1)).replaceAll('-', ''));
}

export function dailySeries(rows: readonly UsageRow[], nowMs: number, days: number): Array<{ date: string; day: number } & Totals> {
  const byDay = new Map<number, Acc>();
  for (const r of rows) {
    let a = byDay.get(r.day);
    if (!a) byDay.set(r.day, (a = empty()));
    add(a, r);
  }
  const d = new Date(nowMs);
  const out = [];
  for (let i = days - 1; i >= 0; i--) {
    const date = ymd(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - i));
    const day = Number(date.replaceAll('-', ''));
    out.push({ date, day, ...totalsOf(byDay.get(day) ?? empty()) });
  }
  return out;
}

export function monthlySeries(rows: readonly UsageRow[], nowMs: number, months: number): Array<{ month: string } & Totals> {
  const byMonth = new Map<string, Acc>();
  for (const r of rows) {
    const s = String(r.day);
    const m = `${s.slice(0, 4)}-${s.slice(4, 6)}`;
    let a = byMonth.get(m);
    if (!a) byMonth.set(m, (a = empty()));
    add(a, r);
  }
  const d = new Date(nowMs);
  const out = [];
  for (let i = months - 1; i >= 0; i--) {
    const month = ymd(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - i, 1)).slice(0, 7);
    out.push({ month, ...totalsOf(byMonth.get(month) ?? empty()) });
  }
  return out;
}

/** A stored usage row as the API shows it. */
export function rowView(r: UsageRow) {
  return {
    day: r.day, credentialId: r.credential_id || null, model: r.model, pricingVersion: r.pricing_version,
    requests: Number(r.requests), inputTokens: Number(r.input_tokens), cachedInputTokens: Number(r.cached_input_tokens),
    outputTokens: Number(r.output_tokens), estimatedRequests: Number(r.estimated_requests), costCents: microToCents(Number(r.cost_micro_cents)),
  };
}
