import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROXY_KINDS } from './common.ts';
import { examplesFor, RULE_EXAMPLES } from './examples.ts';
import { checkRules, RULE_TYPES, RULE_TYPES_BY_KIND } from './registry.ts';

test('the examples hold one rule of every type, and each kind accepts all of its examples in one array', () => {
  assert.deepEqual(Object.keys(RULE_EXAMPLES).sort(), [...RULE_TYPES].sort());
  for (const kind of PROXY_KINDS) {
    const rules = examplesFor(kind);
    assert.deepEqual(rules.map((r) => r.rule_type), RULE_TYPES_BY_KIND[kind]);
    const checked = checkRules(kind, rules);
    assert.ok(checked.ok, `${kind}: ${checked.ok ? '' : checked.message}`);
  }
});

test('examplesFor applies a consumer\'s adjustments to its own type only', () => {
  const rules = examplesFor('mcp', { static_cache: { tools: ['echo'] }, prompt_guard: { action: 'alert' } });
  assert.deepEqual(rules.find((r) => r.rule_type === 'static_cache'), { ...RULE_EXAMPLES.static_cache, tools: ['echo'] });
  assert.deepEqual(rules.find((r) => r.rule_type === 'ip_acl'), RULE_EXAMPLES.ip_acl);
  assert.equal(rules.some((r) => r.rule_type === 'prompt_guard'), false);
  assert.equal(RULE_EXAMPLES.static_cache.tools[0], '*', 'the shared table is not changed');
});
