// Response bodies of the management API: what a client reads back. The OpenAPI document carries them (so generated
// clients get real types), the server's record types are derived from them, and in tests the API checks every answer
// of a documented route against its schema (TOLLGATE_CHECK_RESPONSES), so a field added to a reply without its schema
// fails the suite. Objects are strict: an undocumented field is a failure, not a silent extra.
import { z } from 'zod';
import { AUTH_MODES } from './inbound-auth.ts';
import { BUDGET_PERIODS } from './llm.ts';
import { PROVIDER_IDS } from './providers.ts';
import { ruleSchema } from './rules/registry.ts';

const unixSeconds = z.number().int().describe('Unix seconds.');

export const pinSchema = z.strictObject({
  hostname: z.string(),
  ip: z.string(),
  port: z.number().int(),
}).describe('The DNS pin: the address the gateway connects to for the upstream host.');

export const inboundAuthRecordSchema = z.strictObject({
  mode: z.enum(AUTH_MODES),
  issuer: z.string().optional(),
  audience: z.string().optional(),
  jwksJson: z.string().optional(),
  clockSkewS: z.number().int(),
}).describe('How clients authenticate to the proxy, as stored.');

export const budgetRecordSchema = z.strictObject({
  period: z.enum(BUDGET_PERIODS),
  capUsd: z.number(),
  hardBlock: z.boolean(),
});

export const mcpToolSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
}).describe('A tool of the upstream catalog, as discovered.');

export const resourceSummarySchema = z.strictObject({
  id: z.string(),
  uri: z.string(),
  name: z.string(),
  description: z.string().optional(),
  mimeType: z.string(),
  createdAt: unixSeconds,
}).describe('A synthetic resource without its content (listings).');

export const resourceRecordSchema = resourceSummarySchema.extend({ content: z.string() })
  .describe('A synthetic resource with its content.');

export const globalResourceSummarySchema = resourceSummarySchema.extend({ mcpId: z.string(), mcpName: z.string() })
  .describe('A synthetic resource with the MCP server it belongs to.');

export const mcpServerRecordSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  authType: z.enum(['none', 'bearer']),
  auth: inboundAuthRecordSchema.nullable(),
  tools: z.array(mcpToolSchema),
  resources: z.array(resourceSummarySchema),
  createdAt: unixSeconds,
  proxyHost: z.string().describe('<id>.<proxy domain>: the host clients call.'),
  pin: pinSchema.nullable().optional().describe('Only on the single-record GET.'),
}).describe('An MCP server proxy. The upstream token is never returned.');

export const llmProxyRecordSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  provider: z.enum(PROVIDER_IDS),
  upstreamUrl: z.string(),
  allowedModels: z.array(z.string()),
  defaultModel: z.string().nullable(),
  logConversations: z.boolean(),
  auth: inboundAuthRecordSchema.nullable(),
  budget: budgetRecordSchema.nullable(),
  createdAt: unixSeconds,
  proxyHost: z.string(),
}).describe('An LLM proxy. The provider key is never returned.');

export const llmProxyWithPinSchema = llmProxyRecordSchema.extend({ pin: pinSchema.nullable() });

export const keyRecordSchema = z.strictObject({
  id: z.string(),
  key: z.string().describe('Masked: the first 6 characters, `...`, 4 hex digits of its hash.'),
  tags: z.array(z.string()),
  created_at: unixSeconds,
  ttl: z.null().describe('Keys do not expire.'),
}).describe('A client API key as listed: never the plaintext.');

export const createdKeySchema = z.strictObject({
  id: z.string(),
  key: z.string().describe('The plaintext key, shown only in this answer.'),
  tags: z.array(z.string()),
});

export const keyBudgetEntrySchema = z.strictObject({
  credentialId: z.string(),
  name: z.string().nullable(),
  key: z.string().describe('Masked.'),
  models: z.array(z.string()),
  budget: budgetRecordSchema.nullable(),
  createdAt: unixSeconds,
  links: z.strictObject({ budget: z.string(), budgetReset: z.string(), usageDaily: z.string(), usageHistory: z.string() }),
});

export const profileSchema = z.strictObject({
  name: z.string().nullable(),
  email: z.string(),
  consumerId: z.string().nullable(),
  consumerUsername: z.string().nullable(),
  tags: z.array(z.string()),
});

const deleted = z.strictObject({ deleted: z.boolean() });
const message = z.strictObject({ message: z.string() });

/** The answer of each documented route, by `METHOD /pattern` as the router registers it. */
export const RESPONSES = {
  'GET /api/mcp': z.strictObject({ servers: z.array(mcpServerRecordSchema) }),
  'POST /api/mcp': z.strictObject({ server: mcpServerRecordSchema }),
  'GET /api/mcp/:id': mcpServerRecordSchema,
  'PATCH /api/mcp/:id': mcpServerRecordSchema,
  'DELETE /api/mcp/:id': deleted,
  'POST /api/mcp/:id/tools': z.strictObject({ tools: z.array(mcpToolSchema) }),
  'POST /api/mcp/:id/re-resolve': z.strictObject({ pin: pinSchema.nullable() }),
  'DELETE /api/mcp/:id/cache': z.strictObject({ dropped: z.number().int() }),
  'GET /api/mcp/:id/resources': z.strictObject({ resources: z.array(resourceSummarySchema) }),
  'POST /api/mcp/:id/resources': resourceRecordSchema,
  'GET /api/mcp/:id/resources/:rid': resourceRecordSchema,
  'PATCH /api/mcp/:id/resources/:rid': resourceRecordSchema,
  'DELETE /api/mcp/:id/resources/:rid': deleted,
  'GET /api/resources': z.strictObject({ resources: z.array(globalResourceSummarySchema) }),
  'GET /api/mcp/:id/rules': z.strictObject({ rules: z.array(ruleSchema) }),
  'PUT /api/mcp/:id/rules': z.strictObject({ rules: z.array(ruleSchema) }),
  'GET /api/llm': z.strictObject({ proxies: z.array(llmProxyRecordSchema) }),
  'POST /api/llm': llmProxyRecordSchema,
  'GET /api/llm/:id': llmProxyWithPinSchema,
  'PATCH /api/llm/:id': llmProxyRecordSchema,
  'DELETE /api/llm/:id': deleted,
  'POST /api/llm/:id/re-resolve': z.strictObject({ pin: pinSchema.nullable() }),
  'GET /api/llm/:id/rules': z.strictObject({ rules: z.array(ruleSchema) }),
  'PUT /api/llm/:id/rules': z.strictObject({ rules: z.array(ruleSchema) }),
  'GET /api/llm/:id/keys': z.strictObject({ keys: z.array(keyBudgetEntrySchema) }),
  'GET /api/keys': z.strictObject({ keys: z.array(keyRecordSchema) }),
  'POST /api/keys': z.strictObject({ key: createdKeySchema, message: z.string() }),
  'PATCH /api/keys/:id': z.strictObject({ key: keyRecordSchema, message: z.string() }),
  'DELETE /api/keys/:id': message,
  'GET /api/profile': profileSchema,
  'GET /api/profile/token': z.strictObject({ hasToken: z.boolean() }),
  'POST /api/profile/token': z.strictObject({ token: z.string().describe('The plaintext PAT, shown only here.'), rotated: z.boolean() }),
} as const satisfies Record<string, z.ZodType>;

export type ResponseRoute = keyof typeof RESPONSES;
