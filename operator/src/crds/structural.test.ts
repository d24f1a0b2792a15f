// The rule schemas turned into Kubernetes structural schemas (issue 11, item 3), checked against the structural
// rules the API server enforces on a CRD's openAPIV3Schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RULE_SCHEMAS, ruleSchema } from '@tollgate/contract';
import { NotStructural, structuralSchema, type JsonSchema } from './structural.ts';

/** Where one node breaks a structural rule, not looking at its children. */
function nodeProblems(s: JsonSchema, here: string): string[] {
  const out: string[] = [];
  if (typeof s.type !== 'string' || s.type === 'null') out.push(`${here}: no single type`);
  for (const k of ['anyOf', 'oneOf', 'allOf', 'not', 'const', '$schema', '$ref']) if (k in s) out.push(`${here}: ${k}`);
  if (s.additionalProperties === false) out.push(`${here}: additionalProperties false`);
  if ('exclusiveMinimum' in s && typeof s.exclusiveMinimum !== 'boolean') out.push(`${here}: numeric exclusiveMinimum`);
  if (s.default === null && s.nullable !== true) out.push(`${here}: null default on a non-nullable field`);
  if (s.type === 'array' && s['x-kubernetes-list-type'] !== 'atomic') out.push(`${here}: list type not atomic`);
  return out;
}

/** Where a schema breaks a structural rule (empty: it is structural). */
function structuralProblems(s: JsonSchema, path = ''): string[] {
  const out = nodeProblems(s, path || '(root)');
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>)) out.push(...structuralProblems(v, path ? `${path}.${k}` : k));
  if (s.items) out.push(...structuralProblems(s.items as JsonSchema, `${path}[]`));
  return out;
}

test('rate_limit becomes a structural schema: nullable instead of anyOf, enum instead of const, boolean exclusiveMinimum, atomic lists', () => {
  const s = structuralSchema(RULE_SCHEMAS.rate_limit);
  assert.deepEqual(structuralProblems(s), []);
  const p = s.properties as Record<string, JsonSchema>;
  assert.deepEqual(p.rule_type, { type: 'string', enum: ['rate_limit'] });
  assert.deepEqual(p.ban_after_n_exceeded, {
    description: 'Ban the key after this many over-threshold requests.', type: 'integer', minimum: 0, exclusiveMinimum: true,
    maximum: Number.MAX_SAFE_INTEGER, nullable: true,
  });
  assert.deepEqual(p.timespan, { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 2592000, description: 'Window length in seconds (60 for tokens_per_minute).' });
  assert.equal(p.tools!['x-kubernetes-list-type'], 'atomic');
  assert.deepEqual(p.match_key!.enum, ['ip', 'user_agent', 'consumer', 'api_key', 'tokens_per_minute']);
  assert.deepEqual(s.required, ['rule_type', 'tools', 'name', 'match_key', 'threshold', 'timespan']);
  assert.equal(p.enabled!.default, true, 'defaults carry over, so the API server fills them in');
});

test('every rule type has a structural form', () => {
  for (const [type, schema] of Object.entries(RULE_SCHEMAS)) assert.deepEqual(structuralProblems(structuralSchema(schema)), [], type);
});

test('the union of all rule types has no structural form as it is: the converter says so instead of emitting one', () => {
  assert.throws(() => structuralSchema(ruleSchema), (err: unknown) => err instanceof NotStructural && /^\(root\): a union of several types/.test(err.message));
});
