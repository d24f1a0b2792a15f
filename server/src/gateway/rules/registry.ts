// The rule types, which proxy kinds accept them, and validation of a whole rule array (PUT .../rules).
import { z } from 'zod';
import { HttpError } from '../../http/errors.ts';
import { issueMessage } from '../../http/validate.ts';
import { ipAclSchema } from './ip_acl/schema.ts';
import { lambdaSchema } from './lambda/schema.ts';
import { mcpResourceSchema } from './mcp_resource/schema.ts';
import { modelRouteSchema } from './model_route/schema.ts';
import { promptGuardSchema } from './prompt_guard/schema.ts';
import { promptReplaceSchema } from './prompt_replace/schema.ts';
import { rateLimitSchema } from './rate_limit/schema.ts';
import { responseReplaceSchema } from './response_replace/schema.ts';
import { staticCacheSchema } from './static_cache/schema.ts';
import { toolDescriptionInjectSchema } from './tool_description_inject/schema.ts';

export type ProxyKind = 'mcp' | 'llm';

export const RULE_SCHEMAS = {
  ip_acl: ipAclSchema,
  rate_limit: rateLimitSchema,
  tool_description_inject: toolDescriptionInjectSchema,
  response_replace: responseReplaceSchema,
  prompt_replace: promptReplaceSchema,
  prompt_guard: promptGuardSchema,
  model_route: modelRouteSchema,
  lambda: lambdaSchema,
  static_cache: staticCacheSchema,
  mcp_resource: mcpResourceSchema,
} as const;

export type RuleType = keyof typeof RULE_SCHEMAS;

export const RULE_TYPES_BY_KIND: Record<ProxyKind, readonly RuleType[]> = {
  mcp: ['ip_acl', 'rate_limit', 'tool_description_inject', 'response_replace', 'lambda', 'static_cache', 'mcp_resource'],
  llm: ['ip_acl', 'rate_limit', 'prompt_replace', 'prompt_guard', 'model_route', 'lambda', 'static_cache'],
};

export const ruleSchema = z.discriminatedUnion('rule_type', [
  ipAclSchema, rateLimitSchema, toolDescriptionInjectSchema, responseReplaceSchema, promptReplaceSchema,
  promptGuardSchema, modelRouteSchema, lambdaSchema, staticCacheSchema, mcpResourceSchema,
]);
export type Rule = z.output<typeof ruleSchema>;

export const rulesBodySchema = z.object({ rules: z.array(z.unknown()) });

/** Validates a PUT body's rules for a proxy kind; 400 messages name the rule index and field. */
export function validateRules(kind: ProxyKind, input: unknown[]): Rule[] {
  const out: Rule[] = [];
  const rateLimitNames = new Set<string>();
  input.forEach((raw, i) => {
    const type = (raw as { rule_type?: unknown } | null)?.rule_type;
    if (typeof type !== 'string' || !(type in RULE_SCHEMAS)) {
      throw new HttpError(400, `rules[${i}].rule_type: must be one of ${RULE_TYPES_BY_KIND[kind].join(', ')}`);
    }
    if (!RULE_TYPES_BY_KIND[kind].includes(type as RuleType)) {
      throw new HttpError(400, `rules[${i}].rule_type: ${type} is not valid on ${kind === 'mcp' ? 'MCP' : 'LLM'} proxies (rule index ${i})`);
    }
    const r = RULE_SCHEMAS[type as RuleType].safeParse(raw);
    if (!r.success) {
      const issues = r.error.issues.map((iss) => ({ ...iss, path: ['rules', i, ...iss.path] }));
      throw new HttpError(400, issueMessage(issues).replace(/^rules\.(\d+)/, 'rules[$1]').replace(/^rules(\[\d+\])/, 'rules$1'));
    }
    const rule = r.data as Rule;
    kindChecks(kind, rule, i, rateLimitNames);
    out.push(rule);
  });
  return out;
}

function kindChecks(kind: ProxyKind, rule: Rule, i: number, rateLimitNames: Set<string>): void {
  // LLM requests name no tool, so any other scope would store a rule that never runs (spec: still ['*'] on LLM).
  if (kind === 'llm' && !(rule.tools.length === 1 && rule.tools[0] === '*')) {
    throw new HttpError(400, `rules[${i}].tools: must be ["*"] on LLM proxies (rule index ${i})`);
  }
  if (rule.rule_type === 'lambda' && kind === 'llm' && rule.phase !== 'access') {
    throw new HttpError(400, `rules[${i}].phase: lambda phase response is MCP-only (rule index ${i})`);
  }
  if (rule.rule_type === 'rate_limit') {
    if (rule.match_key === 'tokens_per_minute' && kind !== 'llm') {
      throw new HttpError(400, `rules[${i}].match_key: tokens_per_minute is LLM-only (rule index ${i})`);
    }
    if (rateLimitNames.has(rule.name)) throw new HttpError(400, `rules[${i}].name: rate_limit name "${rule.name}" is already used on this proxy`);
    rateLimitNames.add(rule.name);
  }
}
