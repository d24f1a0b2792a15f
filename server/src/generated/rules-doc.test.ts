import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderRulesDoc } from './rules-doc.ts';
import { RULE_SCHEMAS } from '@tollgate/contract';

test('the rule reference has a section and a field table for every rule type', () => {
  const doc = renderRulesDoc();
  for (const [type, schema] of Object.entries(RULE_SCHEMAS)) {
    assert.ok(doc.includes(`\n## ${type}\n`), `no section for ${type}`);
    for (const field of Object.keys(schema.shape ?? {})) {
      if (field !== 'rule_type') assert.ok(doc.includes(`| \`${field}\` |`), `${type}.${field} is not documented`);
    }
  }
});
