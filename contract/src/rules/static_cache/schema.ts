import { z } from 'zod';
import { commonFields, defineRule } from '../common.ts';

export const staticCacheSchema = z.object({
  rule_type: z.literal('static_cache'),
  ...commonFields,
  cache_ttl: z.number().int().min(60, 'must be at least 60').max(86400, 'must be at most 86400').describe('Seconds, 60 to 86400.'),
  cache_isolation: z.enum(['per_identity', 'shared']).default('per_identity')
    .describe('per_identity: one slot per caller (credential id, or the JWT claims below); shared: one slot for all.'),
  cache_identity_claims: z.array(z.string().min(1)).min(1).default(['iss', 'sub'])
    .describe('JWT claim names that identify a caller in jwt mode (a token with none of them is not cached).'),
}).describe('Caches responses keyed by the request payload.');
export type StaticCacheRule = z.output<typeof staticCacheSchema>;

export const definition = defineRule(staticCacheSchema, ['mcp', 'llm']);
