import { z } from 'zod';
import { commonFields, defineRule, ruleName } from '../common.ts';

const BAN_PAIR = 'ban_after_n_exceeded and ban_timespan must be set together';

export const rateLimitSchema = z.object({
  rule_type: z.literal('rate_limit'),
  ...commonFields,
  name: ruleName.describe('Unique per proxy.'),
  match_key: z.enum(['ip', 'user_agent', 'consumer', 'api_key', 'tokens_per_minute'])
    .describe('What is counted per window; tokens_per_minute (LLM only) counts tokens instead of requests.'),
  threshold: z.number().int().positive().describe('Requests (or tokens) allowed per window.'),
  timespan: z.number().int().positive().max(86400 * 30).describe('Window length in seconds (60 for tokens_per_minute).'),
  dryrun: z.boolean().default(false).describe('Log and emit events but never block.'),
  reset_expire_on_hit: z.boolean().default(false).describe('Refresh the window on every hit (sliding window).'),
  ban_after_n_exceeded: z.number().int().positive().nullable().default(null).describe('Ban the key after this many over-threshold requests.'),
  ban_timespan: z.number().int().positive().max(86400 * 365).nullable().default(null).describe('Ban duration in seconds.'),
}).refine((r) => (r.ban_after_n_exceeded === null) === (r.ban_timespan === null), {
  path: ['ban_timespan'], message: BAN_PAIR,
}).describe('Count requests (or tokens) per key and window; answer 429 with Retry-After, optionally ban.');
export type RateLimitRule = z.output<typeof rateLimitSchema>;

export const definition = defineRule(rateLimitSchema, ['mcp', 'llm'], [
  // The refinement above, for the CRD (absent there is null here).
  { cel: 'has(self.ban_after_n_exceeded) == has(self.ban_timespan)', message: BAN_PAIR, fieldPath: '.ban_timespan' },
]);
