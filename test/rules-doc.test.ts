import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RULES_DOC_PATH, renderRulesDoc } from '../scripts/gen-rules-doc.ts';
import { RULE_SCHEMAS } from '../server/src/gateway/rules/registry.ts';

test('docs/rules.md is current (run `node --import tsx scripts/gen-rules-doc.ts` when this fails)', () => {
  const root = new URL('../', import.meta.url).pathname;
  let current = '';
  try {
    current = readFileSync(root + RULES_DOC_PATH, 'utf8');
  } catch { /* missing */ }
  assert.ok(current === renderRulesDoc(), `${RULES_DOC_PATH} is stale`);
});

test('the rule reference has a section and a field table for every rule type', () => {
  const doc = renderRulesDoc();
  for (const [type, schema] of Object.entries(RULE_SCHEMAS)) {
    assert.ok(doc.includes(`\n## ${type}\n`), `no section for ${type}`);
    for (const field of Object.keys(schema.shape ?? {})) {
      if (field !== 'rule_type') assert.ok(doc.includes(`| \`${field}\` |`), `${type}.${field} is not documented`);
    }
  }
});
