// The contract's caps on a proxy's rules (100 rules, 20 lambdas) apply to the concatenation of its RuleSets: each set
// may be within a RuleSet's own maxItems and the whole still be refused, with the API's message, before any PUT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../kube/objects.ts';
import type { RuleSetSpec } from '../kinds/specs.ts';
import { combine } from './rule-set.ts';

const rs = (name: string, order: number, rules: unknown[]): KubeObject<RuleSetSpec> => ({
  apiVersion: 'tollgate.dev/v1alpha1', kind: 'RuleSet',
  metadata: { name, namespace: 'ns', uid: name, resourceVersion: '1' },
  spec: { deletionPolicy: 'Delete', targetRef: { kind: 'McpProxy', name: 'p' }, order, rules: rules as RuleSetSpec['rules'] },
});
const acl = { rule_type: 'ip_acl', tools: ['*'], action: 'deny', cidrs: ['203.0.113.7'] };
const lambda = (name: string) => ({ rule_type: 'lambda', tools: ['*'], phase: 'access', name, lua_code: 'svc.log.info("x")' });

test('two RuleSets of 60 rules each are refused together with the rule limit; 50 and 50 are stored', () => {
  const over = combine([rs('a', 0, Array(60).fill(acl)), rs('b', 1, Array(60).fill(acl))], 'mcp');
  assert.equal(!over.ok && over.message, 'rules: rule limit reached (120/100). A proxy holds at most 100 rules.');
  const fits = combine([rs('a', 0, Array(50).fill(acl)), rs('b', 1, Array(50).fill(acl))], 'mcp');
  assert.ok(fits.ok && fits.value.rules.length === 100);
});

test('the lambda limit counts the lambdas of every RuleSet of the proxy', () => {
  const sets = [rs('a', 0, Array.from({ length: 15 }, (_, i) => lambda(`a${i}`))), rs('b', 1, Array.from({ length: 6 }, (_, i) => lambda(`b${i}`)))];
  const c = combine(sets, 'mcp');
  assert.equal(!c.ok && c.message, 'rules: lambda limit reached (21/20). A proxy holds at most 20 lambda rules.');
});
