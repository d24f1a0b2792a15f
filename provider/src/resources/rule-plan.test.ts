import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RULE_TYPES } from '@tollgate/contract';
import { UNKNOWN, type ObjectValue } from '../framework/types.ts';
import { RULE_FIELDS, ruleAttributes } from '../schema/rule-attributes.ts';
import { flatRule, planRules } from './rule-plan.ts';

const blank = (): ObjectValue => flatRule({});

test('every field of every rule type is an attribute, with one Terraform type per field name', () => {
  const attrs = ruleAttributes();
  const covered = new Set([...RULE_FIELDS.values()].flatMap((f) => f.ruleTypes));
  assert.deepEqual([...covered].sort(), [...RULE_TYPES].sort());
  assert.equal(attrs.rule_type?.required, true);
  assert.deepEqual(attrs.cidrs?.type, ['list', 'string']);
  assert.equal(attrs.threshold?.type, 'number');
  assert.equal(attrs.dryrun?.type, 'bool');
  for (const [name, a] of Object.entries(attrs)) if (name !== 'rule_type') assert.ok(a.optional && a.computed, name);
});

test('the plan fills the defaults the server will store and leaves other types\' fields null', () => {
  const rule = { ...blank(), rule_type: 'rate_limit', name: 'per-ip', tools: ['*'], match_key: 'ip', threshold: 10, timespan: 60 };
  const p = planRules('mcp', [rule]);
  assert.deepEqual(p.diagnostics, []);
  const planned = p.rules[0]!;
  assert.equal(planned.enabled, true);
  assert.equal(planned.dryrun, false);
  assert.equal(planned.ban_timespan, null);
  assert.equal(planned.cidrs, null);
});

test('a field of another rule type is refused at plan time, naming the attribute', () => {
  const p = planRules('mcp', [{ ...blank(), rule_type: 'ip_acl', action: 'deny', cidrs: ['10.0.0.0/8'], tools: ['*'], threshold: 5 }]);
  assert.equal(p.diagnostics.length, 1);
  assert.deepEqual(p.diagnostics[0]!.path, ['rules', 0, 'threshold']);
  assert.match(p.diagnostics[0]!.detail ?? '', /is not a field of ip_acl rules \(it belongs to rate_limit\)/);
});

test('the contract\'s messages reach the plan: field errors and proxy-kind errors', () => {
  const bad = planRules('mcp', [{ ...blank(), rule_type: 'rate_limit', name: 'x', tools: ['*'], match_key: 'ip', threshold: 10, timespan: 60, ban_timespan: 30 }]);
  assert.equal(bad.diagnostics[0]!.detail, 'rules[0].ban_timespan: ban_after_n_exceeded and ban_timespan must be set together');
  assert.deepEqual(bad.diagnostics[0]!.path, ['rules', 0, 'ban_timespan']);
  const kind = planRules('llm', [{ ...blank(), rule_type: 'ip_acl', action: 'deny', cidrs: ['10.0.0.0/8'], tools: ['search'] }]);
  assert.equal(kind.diagnostics[0]!.detail, 'rules[0].tools: must be ["*"] on LLM proxies (rule index 0)');
  assert.deepEqual(kind.diagnostics[0]!.path, ['rules', 0, 'tools']);
});

test('a rule holding values unknown at plan time is planned with its missing fields unknown', () => {
  const p = planRules('mcp', [{ ...blank(), rule_type: 'ip_acl', action: 'deny', cidrs: UNKNOWN, tools: ['*'] }]);
  assert.deepEqual(p.diagnostics, []);
  assert.equal(p.rules[0]!.enabled, UNKNOWN);
  assert.equal(p.rules[0]!.threshold, null);
});
