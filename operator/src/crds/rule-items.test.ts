// The flat structural form of the rule union (the items of a RuleSet's rules), checked against the contract's own
// schemas: what each rule type needs and must not have is what zod refuses a rule without or ignores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RULE_SCHEMAS, RULE_TYPES, collectRuleFields, type RuleType } from '@tollgate/contract';
import { ruleFieldSchema, ruleItemSchema } from './rule-items.ts';
import type { Validation } from './cel.ts';
import type { JsonSchema } from './structural.ts';

const items = ruleItemSchema();
const props = items.properties as Record<string, JsonSchema>;
const rules = items['x-kubernetes-validations'] as Validation[];
const FIELDS = collectRuleFields();

/** The fields zod reports missing in a rule of this type that has only rule_type and tools. */
function missingFields(t: RuleType): string[] {
  const r = RULE_SCHEMAS[t].safeParse({ rule_type: t, tools: ['*'] });
  if (r.success) return [];
  // The input has nothing but rule_type and tools, so every issue about one field is about a missing one.
  return r.error.issues.filter((i) => i.path.length === 1).map((i) => String(i.path[0]));
}

test('rule_type is required and one of the contract\'s rule types; tools, which every type needs, is required too', () => {
  assert.deepEqual(props.rule_type!.enum, [...RULE_TYPES]);
  assert.deepEqual(items.required, ['rule_type', 'tools']);
  assert.deepEqual(Object.keys(props), ['rule_type', ...FIELDS.keys()]);
});

test('each rule type needs exactly the fields zod refuses a rule without', () => {
  for (const t of RULE_TYPES) {
    const needed = missingFields(t);
    const rule = rules.find((v) => v.rule.startsWith(`self.rule_type != '${t}' || (has(`));
    if (!needed.length) { assert.equal(rule, undefined, t); continue; }
    assert.deepEqual([...rule!.rule.matchAll(/has\(self\.(\w+)\)/g)].map((m) => m[1]).sort(), needed.sort(), t);
    assert.equal(rule!.reason, 'FieldValueRequired');
  }
  assert.ok(rules.some((v) => v.message === 'rate_limit rules need name, match_key, threshold and timespan'));
});

test('a field of other rule types is refused, one rule per field naming the types that have it', () => {
  const threshold = rules.find((v) => v.fieldPath === '.threshold' && v.reason === 'FieldValueForbidden');
  assert.deepEqual(threshold, {
    rule: "!has(self.threshold) || self.rule_type == 'rate_limit'", message: 'threshold is a field of rate_limit rules only',
    fieldPath: '.threshold', reason: 'FieldValueForbidden',
  });
  const pattern = rules.find((v) => v.fieldPath === '.pattern');
  assert.equal(pattern?.message, 'pattern is a field of model_route, prompt_replace and response_replace rules only');
  const shared = [...FIELDS.values()].filter((f) => f.ruleTypes.length < RULE_TYPES.length);
  assert.equal(rules.filter((v) => v.reason === 'FieldValueForbidden').length, shared.length);
  assert.ok(!rules.some((v) => v.fieldPath === '.tools' || v.fieldPath === '.enabled'), 'fields of every type need no rule');
});

test('the cross-field refinements come from the contract, guarded by rule_type', () => {
  assert.ok(rules.some((v) => v.rule === "self.rule_type != 'rate_limit' || (has(self.ban_after_n_exceeded) == has(self.ban_timespan))"
    && v.message === 'ban_after_n_exceeded and ban_timespan must be set together' && v.fieldPath === '.ban_timespan'));
  assert.ok(rules.some((v) => v.rule.startsWith("self.rule_type != 'mcp_resource' || (") && v.message === 'tool_name is required when expose_as_tool is true'));
  // The refinements they mirror give the same messages.
  const ban = RULE_SCHEMAS.rate_limit.safeParse({ rule_type: 'rate_limit', tools: ['*'], name: 'a', match_key: 'ip', threshold: 1, timespan: 1, ban_timespan: 5 });
  assert.equal(ban.error?.issues[0]?.message, 'ban_after_n_exceeded and ban_timespan must be set together');
});

test('defaults are left out (they depend on the rule type) and so is nullable (an unset field is null)', () => {
  const walk = (s: JsonSchema, path: string): string[] => [
    ...('default' in s || 'nullable' in s ? [path] : []),
    ...Object.entries((s.properties ?? {}) as Record<string, JsonSchema>).flatMap(([k, v]) => walk(v, `${path}.${k}`)),
    ...(s.items ? walk(s.items as JsonSchema, `${path}[]`) : []),
  ];
  assert.deepEqual(walk(items, 'rules[]'), []);
});

test('a field whose rule types agree keeps their constraints; where they differ, a union of enums or only the common type', () => {
  assert.deepEqual(props.pattern, {
    description: 'model_route: Regular expression over the concatenated role=user message contents. prompt_replace: Regular expression (RE2 syntax). '
      + 'response_replace: Regular expression (RE2 syntax; PCRE backreferences and lookaround are rejected).',
    type: 'string', minLength: 1,
  });
  assert.deepEqual(props.action!.enum, ['allow', 'deny', 'block', 'rewrite', 'alert']);
  assert.ok(rules.some((v) => v.rule === "self.rule_type != 'ip_acl' || !has(self.action) || self.action in ['allow', 'deny']"
    && v.message === 'action of ip_acl rules must be one of allow, deny'));
  assert.deepEqual(props.phase!.enum, ['access', 'response', 'request']);
  // lambda: 1 to 128 characters; rate_limit: a pattern. Only the type is common, plus the generator's bound.
  assert.deepEqual(props.name, { description: 'lambda: Human-readable id. rate_limit: Unique per proxy.', maxLength: 128, type: 'string' });
});

test('lists the contract leaves unbounded get bounds; the contract\'s own bounds win', () => {
  assert.equal(props.tools!.maxItems, 500);
  assert.equal((props.tools!.items as JsonSchema).maxLength, 256);
  assert.equal((props.tools!.items as JsonSchema).minLength, 1);
  assert.equal(props.lua_code!.maxLength, 65536);
  const threshold = ruleFieldSchema(FIELDS.get('threshold')!);
  assert.equal(threshold.description, 'Requests (or tokens) allowed per window. (rate_limit)');
  assert.equal(threshold.type, 'integer');
});
