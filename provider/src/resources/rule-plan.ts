// Plan-time checks and defaults of a rule set, with the contract's own schemas and messages: what `terraform plan`
// refuses is what the API would refuse (but for the engine checks, RE2 syntax and Lua compilation, which the server
// makes on apply), and the plan shows every default the server will store.
import { RULE_SCHEMAS, RULE_TYPES, checkRules, issueMessage, type ProxyKind, type RuleType } from '@tollgate/contract';
import { UNKNOWN, type Diagnostic, type ObjectValue, type Value } from '../framework/types.ts';
import { fieldPath } from '../client/diagnostics.ts';
import { RULE_FIELDS as FIELDS } from '../schema/rule-attributes.ts';
import { isKnown } from './values.ts';

const FIELD_NAMES = [...FIELDS.keys()];

function fieldsOf(t: RuleType): Set<string> {
  return new Set(FIELD_NAMES.filter((f) => FIELDS.get(f)!.ruleTypes.includes(t)));
}

const diag = (summary: string, detail: string, path: (string | number)[]): Diagnostic => ({ severity: 'error', summary, detail, path });

/** A rule as the state holds it: every field present, null where the rule type has none. */
export function flatRule(rule: Record<string, unknown>): ObjectValue {
  const out: ObjectValue = { rule_type: String(rule.rule_type) };
  for (const f of FIELD_NAMES) out[f] = (rule[f] ?? null) as Value;
  return out;
}

interface PlannedRules { rules: ObjectValue[]; diagnostics: Diagnostic[] }

function planOne(rule: ObjectValue, i: number): { planned: ObjectValue; parsed?: Record<string, unknown>; diagnostics: Diagnostic[] } {
  const type = rule.rule_type;
  if (type === UNKNOWN) return { planned: { ...rule }, diagnostics: [] };
  if (typeof type !== 'string' || !RULE_TYPES.includes(type as RuleType)) {
    return { planned: rule, diagnostics: [diag('Invalid rule type', `rules[${i}].rule_type: must be one of ${RULE_TYPES.join(', ')}`, ['rules', i, 'rule_type'])] };
  }
  const own = fieldsOf(type as RuleType);
  const foreign = FIELD_NAMES.filter((f) => !own.has(f) && rule[f] !== null && rule[f] !== undefined);
  if (foreign.length) {
    return { planned: rule, diagnostics: foreign.map((f) => diag('Attribute not used by this rule type', `rules[${i}].${f}: is not a field of ${type} rules (it belongs to ${FIELDS.get(f)!.ruleTypes.join(', ')})`, ['rules', i, f])) };
  }
  if (!isKnown(rule)) {
    const planned: ObjectValue = { ...rule };
    for (const f of own) if (planned[f] === null) planned[f] = UNKNOWN;
    return { planned, diagnostics: [] };
  }
  const input: Record<string, unknown> = { rule_type: type };
  for (const f of own) if (rule[f] !== null) input[f] = rule[f];
  const r = RULE_SCHEMAS[type as RuleType].safeParse(input);
  if (!r.success) {
    const issues = r.error.issues.map((iss) => ({ ...iss, path: ['rules', i, ...iss.path] }));
    return { planned: rule, diagnostics: [diag('Invalid rule', issueMessage(issues), ['rules', i, ...r.error.issues[0]!.path.map((p) => (typeof p === 'number' ? p : String(p)))])] };
  }
  return { planned: flatRule(r.data as Record<string, unknown>), parsed: r.data as Record<string, unknown>, diagnostics: [] };
}

/** The planned rules with defaults filled, and every problem found without the server. */
export function planRules(kind: Value | undefined, rules: readonly ObjectValue[]): PlannedRules {
  const results = rules.map((r, i) => planOne(r, i));
  const diagnostics = results.flatMap((r) => r.diagnostics);
  const parsed = results.map((r) => r.parsed);
  if (!diagnostics.length && (kind === 'mcp' || kind === 'llm') && parsed.every((p) => p !== undefined)) {
    // The checks across a rule array and against the proxy kind (LLM tools ["*"], unique rate_limit names, ...).
    const whole = checkRules(kind as ProxyKind, parsed);
    if (!whole.ok) {
      const field = /^([\w.[\]]+): /.exec(whole.message)?.[1];
      diagnostics.push(diag('Invalid rule', whole.message, field ? fieldPath(field) : ['rules']));
    }
  }
  return { rules: results.map((r) => r.planned), diagnostics };
}
