// Query parameters of the audit read endpoints (spec "Audit logs, overview, health"). Numbers must be plain
// non-negative integers: anything else is a 400 `<param>: <reason>` (the same shape as body errors), never a 500.
// An empty value (`?event_type=`) means "not given", which is what dashboards send for "all".
import { z } from 'zod';

export const LOGS_DEFAULT_LIMIT = 50;
export const LOGS_MAX_LIMIT = 500;
export const FEED_DEFAULT_LIMIT = 20;
export const FEED_MAX_LIMIT = 100;
/** Pages beyond this are refused rather than turned into huge OFFSET scans. */
export const MAX_PAGE = 100_000;
/** 9999-12-31T23:59:59Z: a bound that keeps every timestamp exact in a double and in bigint arithmetic. */
export const MAX_TIMESTAMP = 253_402_300_799;
export const MAX_EVENT_TYPES = 20;

function intParam(min: number, max: number, reason: string) {
  return z.string().regex(/^\d{1,15}$/, reason).transform(Number).refine((n) => n >= min && n <= max, reason);
}

const timestamp = intParam(0, MAX_TIMESTAMP, 'must be a Unix timestamp in seconds');

const eventTypes = z.string().max(1000)
  .transform((s) => [...new Set(s.split(',').map((x) => x.trim()).filter(Boolean))])
  .refine((a) => a.length <= MAX_EVENT_TYPES, `at most ${MAX_EVENT_TYPES} event types`)
  .refine((a) => a.every((x) => x.length <= 64), 'event types are at most 64 characters');

const range = {
  from: timestamp.optional().describe('Earliest event time, Unix seconds, inclusive.'),
  to: timestamp.optional().describe('Latest event time, Unix seconds, inclusive.'),
};

function fromNotAfterTo(q: { from?: number; to?: number }, ctx: z.RefinementCtx): void {
  if (q.from !== undefined && q.to !== undefined && q.from > q.to) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
  }
}

/** An exact-match filter value: compared for equality, never as a pattern. */
const exactValue = z.string('must be a string').min(1, 'must not be empty').max(256, 'must be at most 256 characters');

export const logsQuerySchema = z.object({
  page: intParam(1, MAX_PAGE, `must be an integer from 1 to ${MAX_PAGE}`).default(1).describe('Page number, from 1.'),
  limit: intParam(1, LOGS_MAX_LIMIT, `must be an integer from 1 to ${LOGS_MAX_LIMIT}`).default(LOGS_DEFAULT_LIMIT).describe('Entries per page.'),
  event_type: eventTypes.optional().describe('Only these event types; one type or a comma-separated list.'),
  mcp_uuid: exactValue.optional().describe('Only the events of this MCP proxy.'),
  llm_uuid: exactValue.optional().describe('Only the events of this LLM proxy.'),
  tool: exactValue.optional().describe('Only the events of this MCP tool (exact name).'),
  model: exactValue.optional().describe('Only the events of this model (exact id).'),
  ...range,
}).superRefine(fromNotAfterTo);

export const chartQuerySchema = z.object({
  bucket: z.enum(['hour', 'day'], 'must be hour or day').default('hour').describe('Bucket size, aligned to UTC.'),
  ...range,
}).superRefine(fromNotAfterTo);

export const feedQuerySchema = z.object({
  limit: intParam(1, FEED_MAX_LIMIT, `must be an integer from 1 to ${FEED_MAX_LIMIT}`).default(FEED_DEFAULT_LIMIT).describe('Number of entries.'),
});

export type LogsQuery = z.output<typeof logsQuerySchema>;
export type ChartQuery = z.output<typeof chartQuerySchema>;
