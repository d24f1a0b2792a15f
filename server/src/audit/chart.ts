// Time buckets of GET /api/logs/chart: ranges aligned to UTC hours or days (Unix time is UTC, so aligning is a
// modulo), zero-filled so a chart needs no gap logic, and bounded in count.
import { GATEWAY_EVENT_TYPES } from '../gateway/event-types.ts';
import { badRequest } from '../http/errors.ts';

export type BucketSize = 'hour' | 'day';

export const BUCKET_SECONDS: Record<BucketSize, number> = { hour: 3600, day: 86400 };
/** Without from: the last 24 hours, or the last 30 days, counting the current bucket. */
export const DEFAULT_BUCKETS: Record<BucketSize, number> = { hour: 24, day: 30 };
export const MAX_BUCKETS = 1000;

export interface ChartRange {
  /** Start of the first bucket (inclusive). */
  start: number;
  /** End of the last bucket (exclusive). */
  end: number;
  size: number;
}

export interface Bucket {
  ts: number;
  allow: number;
  deny: number;
  error: number;
}

export type Outcome = 'allow' | 'deny' | 'error';

/**
 * Event type -> chart series. The gateway's event catalog (gateway/event-types.ts) is the source: each proxied request
 * has exactly one outcome event, e.g. `ip_blocked` is the deny of an ip_acl block. `block` is the spec's other name
 * for a deny. Types without a series (`dlp_match`, `api_request`, ...) are details, not outcomes.
 */
export const OUTCOME_OF: Readonly<Record<string, Outcome>> = Object.freeze({
  ...Object.fromEntries(Object.entries(GATEWAY_EVENT_TYPES).filter((e): e is [string, Outcome] => e[1] !== 'info')),
  block: 'deny',
});

const align = (t: number, size: number) => t - (t % size);

/** from/to are widened to whole buckets: the bucket holding `from` through the bucket holding `to`. */
export function chartRange(bucket: BucketSize, nowS: number, from?: number, to?: number): ChartRange {
  const size = BUCKET_SECONDS[bucket];
  const last = align(to ?? nowS, size);
  const start = from !== undefined ? align(from, size) : last - (DEFAULT_BUCKETS[bucket] - 1) * size;
  if (start > last) throw badRequest('from: must not be after to');
  const count = (last - start) / size + 1;
  if (count > MAX_BUCKETS) throw badRequest(`range too large: at most ${MAX_BUCKETS} ${bucket} buckets`);
  return { start, end: last + size, size };
}

/** Every bucket of the range in time order, with the counted ones filled in. */
export function fillBuckets(range: ChartRange, counted: ReadonlyMap<number, Omit<Bucket, 'ts'>>): Bucket[] {
  const out: Bucket[] = [];
  for (let ts = range.start; ts < range.end; ts += range.size) {
    const c = counted.get(ts);
    out.push({ ts, allow: c?.allow ?? 0, deny: c?.deny ?? 0, error: c?.error ?? 0 });
  }
  return out;
}
