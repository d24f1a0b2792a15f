// The rule types (one per folder, listed by the generated all.ts), which proxy kinds accept them, and the check of a
// whole rule array (PUT .../rules) with the API's messages. Checks that need the engines the gateway runs (RE2
// syntax, Lua compilation) are added by the server on top of this one.
import { z } from 'zod';
import { issueMessage, type Checked } from '../messages.ts';
import type { CrossFieldRule, ProxyKind } from './common.ts';
import { RULE_DEFINITIONS, RULE_SCHEMA_LIST } from './all.ts';

export const ruleSchema = z.discriminatedUnion('rule_type', RULE_SCHEMA_LIST);
export type Rule = z.output<typeof ruleSchema>;
export type RuleType = Rule['rule_type'];

type SchemaOf<T extends RuleType> = Extract<(typeof RULE_SCHEMA_LIST)[number], { shape: { rule_type: z.ZodLiteral<T> } }>;

function ruleTypeOf(schema: z.ZodObject): RuleType {
  return (schema.shape.rule_type as z.ZodLiteral<RuleType>).value;
}

export const RULE_SCHEMAS = Object.fromEntries(RULE_DEFINITIONS.map((d) => [ruleTypeOf(d.schema), d.schema])) as {
  [T in RuleType]: SchemaOf<T>;
};

export const RULE_TYPES: readonly RuleType[] = RULE_DEFINITIONS.map((d) => ruleTypeOf(d.schema));

function typesFor(kind: ProxyKind): readonly RuleType[] {
  return RULE_DEFINITIONS.filter((d) => (d.kinds as readonly ProxyKind[]).includes(kind)).map((d) => ruleTypeOf(d.schema));
}

export const RULE_TYPES_BY_KIND: Record<ProxyKind, readonly RuleType[]> = { mcp: typesFor('mcp'), llm: typesFor('llm') };

type TypeOfDefinition<D> = D extends { schema: { shape: { rule_type: z.ZodLiteral<infer T> } } } ? T : never;
type KindsOfDefinition<D> = D extends { kinds: readonly (infer K)[] } ? K : never;
type RuleTypeIn<D, K extends ProxyKind> = D extends unknown ? (K extends KindsOfDefinition<D> ? TypeOfDefinition<D> : never) : never;
/** RULE_TYPES_BY_KIND[K] as a type: the rule types a proxy of kind K accepts. */
export type RuleTypeOf<K extends ProxyKind> = RuleTypeIn<(typeof RULE_DEFINITIONS)[number], K>;

/** Each rule type's cross-field refinements as CEL (CrossFieldRule), for the CRD of RuleSet. */
export const RULE_CROSS_FIELD_RULES = Object.fromEntries(
  RULE_DEFINITIONS.map((d) => [ruleTypeOf(d.schema), d.crossFieldRules ?? []]),
) as Record<RuleType, readonly CrossFieldRule[]>;

export const rulesBodySchema = z.object({ rules: z.array(z.unknown()) });

const KIND_NAME: Record<ProxyKind, string> = { mcp: 'MCP', llm: 'LLM' };

/**
 * Rules a proxy may hold: every request walks them, and a RuleSet of the operator holds at most as many (the RuleSets
 * of one proxy are concatenated, so the cap applies to the concatenation). Not a per-user quota: no tag raises it.
 */
export const MAX_RULES_PER_PROXY = 100;
/** Lambda rules a proxy may hold: each is a Lua state in every gateway, and a request may run all of them. */
export const MAX_LAMBDAS_PER_PROXY = 20;

/** The caps on a whole array, checked before any rule is parsed (or its Lua compiled). */
function capProblem(input: readonly unknown[]): string | undefined {
  if (input.length > MAX_RULES_PER_PROXY) {
    return `rules: rule limit reached (${input.length}/${MAX_RULES_PER_PROXY}). A proxy holds at most ${MAX_RULES_PER_PROXY} rules.`;
  }
  const lambdas = input.filter((r) => (r as { rule_type?: unknown } | null)?.rule_type === 'lambda').length;
  if (lambdas > MAX_LAMBDAS_PER_PROXY) {
    return `rules: lambda limit reached (${lambdas}/${MAX_LAMBDAS_PER_PROXY}). A proxy holds at most ${MAX_LAMBDAS_PER_PROXY} lambda rules.`;
  }
  return undefined;
}

/** A check the contract cannot make itself (the server's engines: RE2 syntax, Lua compilation). */
export type RuleEngineCheck = (rule: Rule) => { field: string; message: string } | undefined;

/**
 * Checks a PUT body's rules for a proxy kind: the caps on the whole array first, then each rule in order, wholly
 * before the next; the messages name the rule index and field.
 */
export function checkRules(kind: ProxyKind, input: readonly unknown[], engineCheck?: RuleEngineCheck): Checked<Rule[]> {
  const capped = capProblem(input);
  if (capped) return { ok: false, message: capped };
  const out: Rule[] = [];
  const rateLimitNames = new Set<string>();
  for (const [i, raw] of input.entries()) {
    const type = (raw as { rule_type?: unknown } | null)?.rule_type;
    if (typeof type !== 'string' || !RULE_TYPES.includes(type as RuleType)) {
      return { ok: false, message: `rules[${i}].rule_type: must be one of ${RULE_TYPES_BY_KIND[kind].join(', ')}` };
    }
    if (!RULE_TYPES_BY_KIND[kind].includes(type as RuleType)) {
      return { ok: false, message: `rules[${i}].rule_type: ${type} is not valid on ${KIND_NAME[kind]} proxies (rule index ${i})` };
    }
    const r = RULE_SCHEMAS[type as RuleType].safeParse(raw);
    if (!r.success) {
      return { ok: false, message: issueMessage(r.error.issues.map((iss) => ({ ...iss, path: ['rules', i, ...iss.path] }))) };
    }
    const rule = r.data as Rule;
    const engine = engineCheck?.(rule);
    if (engine) return { ok: false, message: `rules[${i}].${engine.field}: ${engine.message}` };
    const wrong = kindProblem(kind, rule, i, rateLimitNames);
    if (wrong) return { ok: false, message: wrong };
    out.push(rule);
  }
  return { ok: true, value: out };
}

/**
 * kindProblem's per-kind checks as CEL, for the CRD of RuleSet: conditions every rule `r` (a CRD item, no defaults
 * filled in) must meet on a proxy of that kind, with a message that reads on with " on <kind> targets". Which rule
 * types a kind accepts is RULE_TYPES_BY_KIND; the unique rate_limit names span several RuleSets and stay with the
 * operator. Keep these beside kindProblem: a check added there belongs here too.
 */
export const KIND_RULE_CEL: Record<ProxyKind, readonly { cel: string; message: string }[]> = {
  llm: [
    { cel: "size(r.tools) == 1 && r.tools[0] == '*'", message: 'tools must be ["*"]' },
    { cel: "r.rule_type != 'lambda' || !has(r.phase) || r.phase == 'access'", message: 'lambda phase response is not valid' },
  ],
  mcp: [
    {
      cel: "r.rule_type != 'rate_limit' || !has(r.match_key) || r.match_key != 'tokens_per_minute'",
      message: 'rate_limit match_key tokens_per_minute is not valid',
    },
  ],
};

function kindProblem(kind: ProxyKind, rule: Rule, i: number, rateLimitNames: Set<string>): string | undefined {
  // LLM requests name no tool, so any other scope would store a rule that never runs (spec: still ['*'] on LLM).
  if (kind === 'llm' && !(rule.tools.length === 1 && rule.tools[0] === '*')) {
    return `rules[${i}].tools: must be ["*"] on LLM proxies (rule index ${i})`;
  }
  if (rule.rule_type === 'lambda' && kind === 'llm' && rule.phase !== 'access') {
    return `rules[${i}].phase: lambda phase response is MCP-only (rule index ${i})`;
  }
  if (rule.rule_type !== 'rate_limit') return undefined;
  if (rule.match_key === 'tokens_per_minute' && kind !== 'llm') {
    return `rules[${i}].match_key: tokens_per_minute is LLM-only (rule index ${i})`;
  }
  if (rateLimitNames.has(rule.name)) return `rules[${i}].name: rate_limit name "${rule.name}" is already used on this proxy`;
  rateLimitNames.add(rule.name);
  return undefined;
}
