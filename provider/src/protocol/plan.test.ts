import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UNKNOWN, type ObjectValue, type Schema } from '../framework/types.ts';
import { defaultPlan, planWith } from './plan.ts';
import { nullUnknowns } from './values.ts';

const schema: Schema = {
  version: 0,
  description: '',
  attributes: {
    id: { description: '', type: 'string', computed: true, stable: true },
    name: { description: '', type: 'string', required: true },
    region: { description: '', type: 'string', required: true, forceNew: true },
    size: { description: '', type: 'number', optional: true, computed: true },
    updated_at: { description: '', type: 'string', computed: true },
    secret: { description: '', type: 'string', optional: true, writeOnly: true },
    labels: {
      description: '',
      optional: true,
      nested: { nesting: 'list', attributes: { key: { description: '', type: 'string', required: true }, uid: { description: '', type: 'string', computed: true } } },
    },
  },
};

const prior: ObjectValue = { id: 'i-1', name: 'a', region: 'eu', size: 2, updated_at: 't1', secret: null, labels: null };

test('on create, computed attributes left null are unknown and configured ones are kept exactly', () => {
  const config: ObjectValue = { id: null, name: 'a', region: 'eu', size: null, updated_at: null, secret: 's3cr3t', labels: [{ key: 'k', uid: null }] };
  const { planned, requiresReplace } = defaultPlan(schema, { prior: null, config, proposed: config });
  assert.deepEqual(planned, { id: UNKNOWN, name: 'a', region: 'eu', size: UNKNOWN, updated_at: UNKNOWN, secret: null, labels: [{ key: 'k', uid: UNKNOWN }] });
  assert.deepEqual(requiresReplace, []);
});

test('with nothing changed, computed attributes keep their prior values (an empty plan)', () => {
  const config: ObjectValue = { ...prior, id: null, size: null, updated_at: null };
  const { planned } = defaultPlan(schema, { prior, config, proposed: prior });
  assert.deepEqual(planned, prior);
});

test('an update keeps stable computed attributes and marks the others unknown', () => {
  const config: ObjectValue = { ...prior, id: null, name: 'b', size: null, updated_at: null };
  const { planned, requiresReplace } = defaultPlan(schema, { prior, config, proposed: { ...prior, name: 'b' } });
  assert.equal(planned.id, 'i-1');
  assert.equal(planned.name, 'b');
  assert.equal(planned.size, UNKNOWN);
  assert.equal(planned.updated_at, UNKNOWN);
  assert.deepEqual(requiresReplace, []);
});

test('a changed forceNew attribute requires replacement and plans computed values as for a create', () => {
  const config: ObjectValue = { ...prior, id: null, region: 'us', size: null, updated_at: null };
  const { planned, requiresReplace } = defaultPlan(schema, { prior, config, proposed: { ...prior, region: 'us' } });
  assert.deepEqual(requiresReplace, [['region']]);
  assert.equal(planned.id, UNKNOWN);
  assert.equal(planned.region, 'us');
});

test('an unknown configured value is planned as unknown and counts as a change', () => {
  const config: ObjectValue = { ...prior, id: null, name: UNKNOWN, size: null, updated_at: null };
  const { planned } = defaultPlan(schema, { prior, config, proposed: { ...prior, name: UNKNOWN } });
  assert.equal(planned.name, UNKNOWN);
  assert.equal(planned.updated_at, UNKNOWN);
});

test('a change to a write-only attribute alone plans nothing', () => {
  const config: ObjectValue = { ...prior, id: null, size: null, updated_at: null, secret: 'new' };
  const { planned } = defaultPlan(schema, { prior, config, proposed: { ...prior, secret: 'new' } });
  assert.deepEqual(planned, prior);
});

test('modifyPlan adjusts the default plan, adds replacement paths, and cannot plan a write-only value', () => {
  const config: ObjectValue = { ...prior, id: null, size: null, updated_at: null, secret: 'x' };
  const result = planWith(schema, ({ planned }) => ({ planned: { ...planned, size: 9, secret: 'leak' }, requiresReplace: [['size']], diagnostics: [{ severity: 'warning', summary: 'resized' }] }), { prior, config, proposed: prior });
  assert.equal(result.planned.size, 9);
  assert.equal(result.planned.secret, null);
  assert.deepEqual(result.requiresReplace, [['size']]);
  assert.equal(result.diagnostics.length, 1);
});

test('nullUnknowns clears leftover unknowns and names their paths', () => {
  const { value, unknownPaths } = nullUnknowns({ id: UNKNOWN, labels: [{ key: 'k', uid: UNKNOWN }] });
  assert.deepEqual(value, { id: null, labels: [{ key: 'k', uid: null }] });
  assert.deepEqual(unknownPaths, [['id'], ['labels', 0, 'uid']]);
});
