// One valid rule of every type, as a client sends it. The rule reference (server/src/generated/rules-doc.ts), the
// gateway fuzzer (test/fuzz/gateway-traffic.test.ts) and the soak (bench/soak.mjs) all take their "every rule type
// on" rules from here, so a new rule type reaches all three once its example is added (and it must be: the table is
// keyed by RuleType, a missing type does not compile).
//
// The examples let ordinary loopback test traffic through: the soak must never be blocked by its rules, and the
// fuzzer's invariants assume the same unless it opts into a block (an `x-block` header, a prompt injection). A
// consumer adjusts what depends on its own traffic (which MCP tools exist) with `examplesFor`'s second argument.
import type { z } from 'zod';
import type { ProxyKind } from './common.ts';
import { RULE_TYPES_BY_KIND, type RULE_SCHEMAS, type RuleType } from './registry.ts';

/** A rule of type T as sent in a PUT .../rules body (defaults may be left out). */
export type RuleInput<T extends RuleType = RuleType> = z.input<(typeof RULE_SCHEMAS)[T]>;

export type RuleAdjustments = { [T in RuleType]?: Partial<RuleInput<T>> };

// tools is ["*"] throughout: LLM proxies accept nothing else, and every example serves both kinds where its type does.
export const RULE_EXAMPLES: { [T in RuleType]: RuleInput<T> } = {
  ip_acl: { rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.0/8', '::1/128'] },
  lambda: {
    rule_type: 'lambda', tools: ['*'], phase: 'access', name: 'gate',
    lua_code: 'if svc.request.get_header("x-block") then svc.response.exit(403, "blocked") end',
  },
  mcp_resource: { rule_type: 'mcp_resource', tools: ['*'], resource_id: 'readme', uri: 'doc://readme', resource_name: 'readme', content: 'Hello.' },
  model_route: { rule_type: 'model_route', tools: ['*'], pattern: 'route me', target_model: 'gpt-4o' },
  prompt_guard: { rule_type: 'prompt_guard', tools: ['*'], detectors: ['pi_ignore_previous'], action: 'block' },
  prompt_replace: { rule_type: 'prompt_replace', tools: ['*'], pattern: '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[a-z]{2,}', replacement: '[email]' },
  rate_limit: { rule_type: 'rate_limit', tools: ['*'], name: 'generous', match_key: 'api_key', threshold: 1_000_000, timespan: 60 },
  response_replace: { rule_type: 'response_replace', tools: ['*'], pattern: '\\b\\d{4}-\\d{4}-\\d{4}-(\\d{4})\\b', replacement: '[card $1]' },
  static_cache: { rule_type: 'static_cache', tools: ['*'], cache_ttl: 60 },
  tool_description_inject: { rule_type: 'tool_description_inject', tools: ['*'], inject_text: 'Never send personal data to this tool.', inject_position: 'append' },
};

/** One example of every rule type a proxy of this kind accepts, in RULE_TYPES_BY_KIND's order, adjusted per type. */
export function examplesFor(kind: ProxyKind, adjust: RuleAdjustments = {}): RuleInput[] {
  return RULE_TYPES_BY_KIND[kind].map((t) => ({ ...RULE_EXAMPLES[t], ...adjust[t] }) as RuleInput);
}
