import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../kube/objects.ts';
import type { RuleSetSpec } from '../kinds/specs.ts';
import { combine, rulesetsOf } from './rule-set.ts';
import type { ObjectIndex } from './types.ts';

const rs = (name: string, order: number, rules: unknown[], target = 'p'): KubeObject<RuleSetSpec> => ({
  apiVersion: 'tollgate.dev/v1alpha1', kind: 'RuleSet',
  metadata: { name, namespace: 'ns', uid: name, resourceVersion: '1' },
  spec: { deletionPolicy: 'Delete', targetRef: { kind: 'McpProxy', name: target }, order, rules: rules as RuleSetSpec['rules'] },
});
const limit = (name: string) => ({ rule_type: 'rate_limit', tools: ['*'], name, match_key: 'ip', threshold: 5, timespan: 60 });
const index = (objs: KubeObject[]): ObjectIndex => ({ get: () => undefined, list: (kind) => (kind === 'RuleSet' ? objs : []) });

test('rule sets of one target are concatenated by (order, name), other targets left out', () => {
  const sets = rulesetsOf(index([rs('b', 0, [limit('b')]), rs('a', 0, [limit('a')]), rs('z', -1, [limit('z')]), rs('other', 0, [limit('o')], 'q')]), 'ns', { kind: 'McpProxy', name: 'p' });
  assert.deepEqual(sets.map((s) => s.metadata.name), ['z', 'a', 'b']);
  const c = combine(sets, 'mcp');
  assert.ok(c.ok);
  assert.deepEqual(c.value.rules.map((r) => (r as { name: string }).name), ['z', 'a', 'b']);
  assert.equal((c.value.rules[0] as { dryrun: boolean }).dryrun, false, 'defaults filled by the contract');
});

test('an invalid set is named with its own rule index, also for a rule clashing with another set', () => {
  const bad = combine([rs('a', 0, [limit('x')]), rs('b', 1, [limit('y'), { rule_type: 'rate_limit', tools: ['*'] }])], 'mcp');
  assert.equal(bad.ok, false);
  assert.equal(!bad.ok && bad.name, 'b');
  assert.match(!bad.ok ? bad.message : '', /^rules\[1\]\./);
  const clash = combine([rs('a', 0, [limit('same')]), rs('b', 1, [limit('other'), limit('same')])], 'mcp');
  assert.equal(!clash.ok && clash.name, 'b');
  assert.equal(!clash.ok && clash.message, 'rules[1].name: rate_limit name "same" is already used on this proxy');
});
