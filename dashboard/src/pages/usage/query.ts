// The usage page's state in the hash query (`#/usage?llm=<id>&days=30&key=<credential id>`).
export interface UsageQuery { llm?: string; days: number; months: number; key?: string }

export const DAY_CHOICES = [7, 14, 30, 90];
export const MONTH_CHOICES = [3, 6, 12, 24];

export function readUsageQuery(q: URLSearchParams): UsageQuery {
  return {
    llm: q.get('llm') || undefined,
    days: Math.floor(Number(q.get('days'))) || 14,
    months: Math.floor(Number(q.get('months'))) || 12,
    key: q.get('key') || undefined,
  };
}

export function usageHash(q: UsageQuery): Record<string, string | number | undefined> {
  return { llm: q.llm, days: q.days !== 14 ? q.days : undefined, months: q.months !== 12 ? q.months : undefined, key: q.key };
}
