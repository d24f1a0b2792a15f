// Request bodies of the LLM proxy routes (spec "LLM proxy", "Budget object"). One zod schema per body: REST
// validation, the OpenAPI document and the CRD/Terraform schemas derive from these.
import { z } from 'zod';
import { inboundAuthSchema } from './inbound-auth.ts';
import { providerIdSchema } from './providers.ts';

/** Error maps that say "is required" for a missing field and "must be …" for a wrong type. */
function expect(what: string) {
  return { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${what}`) };
}

export const BUDGET_PERIODS = ['fixed', 'daily', 'weekly', 'monthly'] as const;

/** Upper bound for a cap: keeps the cents arithmetic of the budget windows exact in a double. */
export const MAX_CAP_USD = 1_000_000_000;

export const budgetSchema = z.object({
  period: z.enum(BUDGET_PERIODS, expect(`one of ${BUDGET_PERIODS.join(', ')}`))
    .describe('Spend window: daily (UTC midnight), weekly (UTC Monday), monthly (UTC day 1), fixed (only reset by the reset endpoint).'),
  capUsd: z.number(expect('a number')).min(0, 'must be >= 0').max(MAX_CAP_USD, `must be <= ${MAX_CAP_USD}`)
    .describe('Cap in USD for the window; 0 disables the cap (usage is tracked, nothing is blocked).'),
  hardBlock: z.boolean(expect('a boolean')).default(false)
    .describe('true: requests are refused with 402 once the window spend reaches the cap; false: they pass and are flagged.'),
}).describe('A windowed USD budget.');

export type BudgetInput = z.output<typeof budgetSchema>;

const modelId = z.string(expect('a string')).min(1, 'must not be empty').max(256, 'must be at most 256 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be a model id (printable ASCII, no spaces)');

const fields = {
  name: z.string(expect('a string')).trim().min(1, 'is required').max(200, 'must be at most 200 characters')
    .describe('Human-readable name.'),
  provider: providerIdSchema,
  allowedModels: z.array(modelId, expect('an array of model ids')).max(1000, 'must list at most 1000 models')
    .describe('Models clients may use; an empty array allows every model of the provider.'),
  defaultModel: modelId.nullable()
    .describe('Model for clients that send none and for the dashboard; the gateway does not rewrite requests with it.'),
  providerKey: z.string(expect('a string')).min(1, 'must not be empty').max(4096, 'must be at most 4096 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces').nullable()
    .describe('Write-only upstream key, encrypted at rest and never returned; null removes it.'),
  logConversations: z.boolean(expect('a boolean'))
    .describe('Store prompts and completions, encrypted, for 7 days.'),
  auth: inboundAuthSchema.nullable().describe('Inbound auth; null means client API keys (svc_api_key).'),
  budget: budgetSchema.nullable().describe('Proxy-level budget; null means none.'),
};

export const createLlmProxySchema = z.object({
  ...fields,
  allowedModels: fields.allowedModels.default([]),
  defaultModel: fields.defaultModel.default(null),
  providerKey: fields.providerKey.optional(),
  logConversations: fields.logConversations.default(false),
  auth: fields.auth.optional(),
  budget: fields.budget.default(null),
}).describe('POST /api/llm');

export const patchLlmProxySchema = z.object(fields).partial().describe('PATCH /api/llm/:id: any subset of the create body.');

export type CreateLlmProxyInput = z.output<typeof createLlmProxySchema>;
export type PatchLlmProxyInput = z.output<typeof patchLlmProxySchema>;

/** Fields a client may read but never write; sending one is a 400 rather than a silent no-op. */
export const READ_ONLY_FIELDS: Record<string, string> = {
  upstreamUrl: 'is derived from provider and cannot be set',
};

/** Dedupes model ids keeping order. */
export function normalizeModels(models: readonly string[]): string[] {
  return [...new Set(models)];
}
