// Response bodies of the management API: what a client reads back. The OpenAPI document carries them (so generated
// clients get real types), the server's record types are derived from them, and in tests the API checks every answer
// of a documented route against its schema (TOLLGATE_CHECK_RESPONSES), so a field added to a reply without its schema
// fails the suite. Objects are strict: an undocumented field is a failure, not a silent extra.
import { z } from 'zod';
import { AUTH_MODES } from './inbound-auth.ts';
import { BUDGET_PERIODS } from './llm.ts';
import { PROVIDER_IDS } from './providers.ts';
import { ruleSchema } from './rules/registry.ts';
import { toolApproveResultSchema, toolChangesSchema, toolPinningSchema } from './tool-pinning.ts';

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
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
  fingerprint: z.string().optional()
    .describe('SHA-256 (hex) of the canonical JSON of name, description, inputSchema, outputSchema and annotations: the pinned definition. Absent in catalogs discovered before tool pinning existed.'),
}).describe('A tool of the upstream catalog, as discovered and approved.');

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
  toolPinning: toolPinningSchema,
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
const deletedCount = z.strictObject({ deleted: z.number().int().describe('How many rows were deleted.') });

// Dashboard session and second factor (session-only routes).

export const sessionUserSchema = z.strictObject({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
}).describe('The signed-in user.');

export const loginResponseSchema = z.strictObject({
  user: sessionUserSchema,
  mfaRequired: z.boolean().describe('True when the user has 2FA on: complete POST /api/2fa/challenge before using the API.'),
  expiresAt: unixSeconds,
});

export const sessionInfoSchema = z.strictObject({
  user: sessionUserSchema,
  twoFactorEnabled: z.boolean(),
  createdAt: unixSeconds,
  expiresAt: unixSeconds,
});

export const twofaSetupSchema = z.strictObject({
  secret: z.string().describe('The new TOTP secret, base32.'),
  otpauthUri: z.string().describe('otpauth://totp/... URI of the secret, for a QR code.'),
}).describe('2FA stays off until POST /api/2fa/verify accepts a code of this secret.');

// Audit events, overview, health.

export const auditEntrySchema = z.strictObject({
  timestamp: unixSeconds,
  event_type: z.string().describe('allow, deny, error, ip_blocked, dlp_match, api_request, ... (the list is open).'),
  client_ip: z.string(),
  mcp_uuid: z.string().optional(),
  llm_uuid: z.string().optional(),
  tool: z.string().optional(),
  model: z.string().optional(),
  rule_name: z.string().optional(),
  details: z.record(z.string(), z.unknown()),
}).describe('An audit event; optional fields are absent when empty.');

export const chartBucketSchema = z.strictObject({
  ts: unixSeconds.describe('Start of the bucket, Unix seconds (aligned to the UTC hour or day).'),
  allow: z.number().int(),
  deny: z.number().int(),
  error: z.number().int(),
});

export const overviewSchema = z.strictObject({
  totalMcps: z.number().int(),
  totalLlmProxies: z.number().int(),
  totalKeys: z.number().int().describe('Client API keys (the PAT is not counted).'),
  activeRules: z.number().int().describe('Enabled firewall rules over all proxies.'),
  events24h: z.number().int().describe('Gateway events of the last 24 hours (management-API requests not counted).'),
  allow24h: z.number().int(),
  deny24h: z.number().int(),
  error24h: z.number().int(),
});

export const healthSchema = z.strictObject({
  overall: z.enum(['operational', 'degraded']),
  services: z.array(z.strictObject({
    name: z.enum(['database', 'redis', 'state', 'gateway']).describe('`redis` or `state` names the shared state store, by its kind.'),
    status: z.enum(['up', 'down']),
    latencyMs: z.number(),
  })),
});

// LLM usage, budget windows and conversation logs.

const usageCounts = {
  requests: z.number().int(),
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  estimatedRequests: z.number().int().describe('Requests whose tokens were estimated because the provider reported no usage.'),
  costCents: z.number().describe('Cost in cents (fractional).'),
};

export const usageTotalsSchema = z.strictObject({
  ...usageCounts,
  totalTokens: z.number().int().describe('inputTokens + outputTokens.'),
  pricingVersions: z.array(z.string()).describe('The pricing versions that priced these requests, oldest first.'),
  pricingVersion: z.string().nullable().describe('The latest of pricingVersions; null without usage.'),
});

export const usageRowSchema = z.strictObject({
  day: z.number().int().describe('UTC day as YYYYMMDD.'),
  credentialId: z.string().nullable().describe('The client key; null for requests not made with a key (JWT).'),
  model: z.string(),
  pricingVersion: z.string(),
  ...usageCounts,
}).describe('A stored daily usage row.');

export const spendWindowSchema = z.strictObject({
  tag: z.string().describe('The window, e.g. `daily:2025-01-31`, `monthly:2025-01`, `fixed`.'),
  spentCents: z.number().int(),
  rollsOverAt: unixSeconds.describe('End of the window, Unix seconds; 0 for a fixed window (it rolls over only by reset).'),
}).describe('The current spend window of a budget.');

export const monthlyUsageSchema = z.strictObject({
  llmId: z.string(),
  months: z.number().int(),
  series: z.array(usageTotalsSchema.extend({ month: z.string().describe('YYYY-MM (UTC).') })),
  byKey: z.array(usageTotalsSchema.extend({
    credentialId: z.string().nullable(),
    name: z.string().nullable().describe('The key\'s name tag.'),
  })).describe('The current month per key, most expensive first.'),
  totals: usageTotalsSchema,
  currentPricingVersion: z.string(),
});

export const dailyUsageSchema = z.strictObject({
  llmId: z.string(),
  days: z.number().int(),
  series: z.array(usageTotalsSchema.extend({ date: z.string().describe('YYYY-MM-DD (UTC).'), day: z.number().int().describe('YYYYMMDD.') })),
  rows: z.array(usageRowSchema),
  totals: usageTotalsSchema,
  budget: budgetRecordSchema.nullable(),
  window: spendWindowSchema.nullable().describe('null without a budget.'),
});

export const keyDailyUsageSchema = dailyUsageSchema.extend({ credentialId: z.string() })
  .describe('One key on this proxy: its per-key budget (null when it has none) and that budget\'s window.');

export const conversationLogEntrySchema = z.strictObject({
  id: z.string(),
  timestamp: unixSeconds,
  model: z.string(),
  requestSummary: z.string(),
  responseSummary: z.string(),
  tokens: z.number().int().describe('inputTokens + outputTokens.'),
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costCents: z.number(),
  pricingVersion: z.string(),
  status: z.number().int().describe('HTTP status of the provider answer.'),
  streamed: z.boolean(),
  credentialId: z.string().nullable(),
}).describe('A conversation log without its content (listings).');

export const conversationLogSchema = conversationLogEntrySchema.extend({
  prompt: z.string().describe('The request body as forwarded to the provider, decrypted.'),
  completion: z.string().describe('The generated text, decrypted.'),
}).describe('A conversation log with its prompt and completion.');

// Other.

export const jwksTestResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    keys: z.array(z.strictObject({
      kid: z.string().nullable(),
      kty: z.enum(['RSA', 'EC', 'OKP']),
      alg: z.string().nullable(),
      use: z.literal('sig').nullable(),
    })),
  }),
  z.strictObject({ ok: z.literal(false), error: z.string() }),
]);

export const openApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()).optional(),
}).describe('An OpenAPI 3.1 document.');

/** The answer of each documented route, by `METHOD /pattern` as the router registers it. */
export const RESPONSES = {
  'GET /api/mcp': z.strictObject({ servers: z.array(mcpServerRecordSchema) }),
  'POST /api/mcp': z.strictObject({ server: mcpServerRecordSchema }),
  'GET /api/mcp/:id': mcpServerRecordSchema,
  'PATCH /api/mcp/:id': mcpServerRecordSchema,
  'DELETE /api/mcp/:id': deleted,
  'POST /api/mcp/:id/tools': z.strictObject({ tools: z.array(mcpToolSchema) }),
  'GET /api/mcp/:id/tool-changes': toolChangesSchema,
  'POST /api/mcp/:id/tool-changes/approve': toolApproveResultSchema,
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
  'GET /api/keys/:id': keyRecordSchema,
  'POST /api/keys': z.strictObject({ key: createdKeySchema, message: z.string() }),
  'PATCH /api/keys/:id': z.strictObject({ key: keyRecordSchema, message: z.string() }),
  'DELETE /api/keys/:id': message,
  'GET /api/profile': profileSchema,
  'GET /api/profile/token': z.strictObject({ hasToken: z.boolean() }),
  'POST /api/profile/token': z.strictObject({ token: z.string().describe('The plaintext PAT, shown only here.'), rotated: z.boolean() }),
  'POST /api/auth/login': loginResponseSchema,
  'POST /api/auth/logout': z.strictObject({ loggedOut: z.literal(true) }),
  'GET /api/auth/session': sessionInfoSchema,
  'POST /api/2fa/setup': twofaSetupSchema,
  'POST /api/2fa/verify': z.strictObject({ enabled: z.literal(true) }),
  'POST /api/2fa/disable': z.strictObject({ enabled: z.literal(false) }),
  'POST /api/2fa/challenge': z.strictObject({ mfaPassed: z.literal(true) }),
  'POST /api/mcp/jwks/test': jwksTestResultSchema,
  'GET /api/llm/:id/keys/:credId/budget': keyBudgetEntrySchema,
  'PUT /api/llm/:id/keys/:credId/budget': keyBudgetEntrySchema,
  'DELETE /api/llm/:id/keys/:credId/budget': z.strictObject({ deleted: z.boolean().describe('False when the key had no cap.') }),
  'GET /api/llm/:id/usage': monthlyUsageSchema,
  'GET /api/llm/:id/usage/daily': dailyUsageSchema,
  'GET /api/llm/:id/keys/:credId/usage/daily': keyDailyUsageSchema,
  'DELETE /api/llm/:id/usage/history': deletedCount,
  'DELETE /api/llm/:id/keys/:credId/usage/history': deletedCount,
  'POST /api/llm/:id/budget/reset': z.strictObject({ reset: z.literal(true) }),
  'POST /api/llm/:id/keys/:credId/budget/reset': z.strictObject({ reset: z.literal(true) }),
  'GET /api/llm/:id/logs': z.strictObject({ logs: z.array(conversationLogEntrySchema) }),
  'GET /api/llm/:id/logs/:logId': conversationLogSchema,
  'DELETE /api/llm/:id/logs': deletedCount,
  'GET /api/logs': z.strictObject({
    logs: z.array(auditEntrySchema).describe('Most recent first.'),
    total: z.number().int().describe('Events matching the filter, over all pages.'),
    page: z.number().int(),
    limit: z.number().int(),
  }),
  'GET /api/logs/chart': z.strictObject({ buckets: z.array(chartBucketSchema).describe('Every bucket of the range in time order, zeros included.') }),
  'GET /api/overview': overviewSchema,
  'GET /api/overview/feed': z.strictObject({ entries: z.array(auditEntrySchema).describe('Most recent first.') }),
  'GET /api/health': healthSchema,
  'GET /api/openapi.json': openApiDocumentSchema,
} as const satisfies Record<string, z.ZodType>;

export type ResponseRoute = keyof typeof RESPONSES;
