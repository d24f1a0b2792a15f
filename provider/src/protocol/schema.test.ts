import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Schema } from '../framework/types.ts';
import { toWireDiagnostics } from './diagnostics.ts';
import { toWireSchema } from './schema.ts';
import { objectType } from './types-of.ts';

const schema: Schema = {
  version: 2,
  description: 'A key.',
  attributes: {
    name: { description: 'Name.', type: 'string', required: true },
    secret: { description: 'Secret.', type: 'string', optional: true, sensitive: true, writeOnly: true },
    tags: { description: 'Tags.', type: ['map', 'string'], optional: true, computed: true },
    rules: {
      description: 'Rules.',
      optional: true,
      nested: { nesting: 'list', attributes: { match: { description: 'Match.', type: ['object', { host: 'string' }], required: true } } },
    },
    limits: { description: 'Limits.', optional: true, nested: { nesting: 'map', attributes: { rpm: { description: 'Per minute.', type: 'number', required: true } } } },
  },
};

test('attributes carry their cty type as compact JSON, their flags and their description', () => {
  const wire = toWireSchema(schema);
  assert.equal(wire.version, 2);
  assert.equal(wire.block.description, 'A key.');
  const byName = Object.fromEntries(wire.block.attributes.map((a) => [a.name, a]));
  assert.equal(Buffer.from(byName.tags!.type).toString(), '["map","string"]');
  assert.equal(Buffer.from(byName.name!.type).toString(), '"string"');
  assert.deepEqual([byName.tags!.optional, byName.tags!.computed, byName.tags!.required], [true, true, false]);
  assert.deepEqual([byName.secret!.sensitive, byName.secret!.write_only], [true, true]);
  assert.equal(byName.name!.description, 'Name.');
});

test('nested attributes become nested_type objects with their nesting mode and no type bytes', () => {
  const rules = toWireSchema(schema).block.attributes.find((a) => a.name === 'rules')!;
  assert.equal(rules.type.length, 0);
  assert.equal(rules.nested_type?.nesting, 'LIST');
  assert.equal(Buffer.from(rules.nested_type!.attributes[0]!.type).toString(), '["object",{"host":"string"}]');
});

test('diagnostic paths name the attribute and its list index or map key, where terraform can place them', () => {
  const type = objectType(schema.attributes);
  const [listPath, mapPath, plainMap] = toWireDiagnostics([
    { severity: 'error', summary: 'a', path: ['rules', 1, 'match', 'host'] },
    { severity: 'warning', summary: 'b', path: ['limits', 'gpt-4', 'rpm'] },
    { severity: 'error', summary: 'c', detail: 'd', path: ['tags', 'env'] },
  ], type);
  assert.deepEqual(listPath?.attribute?.steps, [{ attribute_name: 'rules' }, { element_key_int: 1 }]);
  assert.deepEqual(mapPath?.attribute?.steps, [{ attribute_name: 'limits' }, { element_key_string: 'gpt-4' }]);
  assert.equal(mapPath?.severity, 'WARNING');
  assert.deepEqual(plainMap?.attribute?.steps, [{ attribute_name: 'tags' }, { element_key_string: 'env' }]);
  assert.equal(plainMap?.detail, 'd');
});
