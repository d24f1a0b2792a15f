import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decode, encode, ExtData } from '@msgpack/msgpack';
import { UNKNOWN, type Attribute, type ObjectValue } from '../framework/types.ts';
import { decodeObject, encodeDynamicValue, fromJson } from './cty.ts';
import { objectType } from './types-of.ts';

const attributes: Record<string, Attribute> = {
  id: { description: '', type: 'string', computed: true },
  count: { description: '', type: 'number', optional: true },
  enabled: { description: '', type: 'bool', optional: true },
  tags: { description: '', type: ['map', 'string'], optional: true },
  names: { description: '', type: ['set', 'string'], optional: true },
  point: { description: '', type: ['object', { x: 'number', y: 'number' }], optional: true },
  anything: { description: '', type: 'dynamic', optional: true },
  rules: {
    description: '',
    optional: true,
    nested: { nesting: 'list', attributes: { name: { description: '', type: 'string', required: true }, rank: { description: '', type: 'number', computed: true } } },
  },
  owner: { description: '', optional: true, nested: { nesting: 'single', attributes: { email: { description: '', type: 'string', optional: true } } } },
};
const type = objectType(attributes);

function roundTrip(value: ObjectValue): ObjectValue | null {
  const wire = encodeDynamicValue(value, type);
  return decodeObject(wire, type);
}

test('a full object survives encode then decode', () => {
  const value: ObjectValue = {
    id: 'a1', count: 3.5, enabled: true, tags: { env: 'prod' }, names: ['x', 'y'], point: { x: 1, y: -2 },
    anything: { k: ['v', 1] }, rules: [{ name: 'r', rank: 7 }], owner: { email: 'o@example.com' },
  };
  assert.deepEqual(roundTrip(value), value);
});

test('every attribute is on the wire, nil for null, and absent attributes decode as null', () => {
  const wire = encodeDynamicValue({ id: 'a1' }, type);
  const raw = decode(wire.msgpack!) as Record<string, unknown>;
  assert.deepEqual(Object.keys(raw).sort(), Object.keys(attributes).sort());
  assert.equal(raw.count, null);
  assert.deepEqual(decodeObject({ msgpack: Buffer.from(encode({ id: 'x' })) }, type), {
    id: 'x', count: null, enabled: null, tags: null, names: null, point: null, anything: null, rules: null, owner: null,
  });
});

test('unknown encodes as extension 0 with an empty payload and decodes back', () => {
  const wire = encodeDynamicValue({ id: UNKNOWN, rules: [{ name: 'r', rank: UNKNOWN }] }, type);
  const raw = decode(wire.msgpack!) as Record<string, unknown>;
  assert.ok(raw.id instanceof ExtData);
  assert.equal((raw.id as ExtData).type, 0);
  assert.equal((raw.id as ExtData).data.length, 0);
  const back = decodeObject(wire, type);
  assert.equal(back?.id, UNKNOWN);
  assert.deepEqual(back?.rules, [{ name: 'r', rank: UNKNOWN }]);
});

test('a refined unknown (extension 12) and any other extension decode as unknown', () => {
  const refinement = encode(new Map<number, unknown>([[1, false], [2, 'prefix-']]));
  const raw = { id: new ExtData(12, refinement), count: new ExtData(5, new Uint8Array([1])), tags: new ExtData(0, new Uint8Array()) };
  const value = decodeObject({ msgpack: Buffer.from(encode(raw)) }, type);
  assert.equal(value?.id, UNKNOWN);
  assert.equal(value?.count, UNKNOWN);
  assert.equal(value?.tags, UNKNOWN);
});

test('numbers arrive as int, big int64, float or decimal string', () => {
  const numbers = objectType({ a: { description: '', type: 'number' }, b: { description: '', type: 'number' }, c: { description: '', type: 'number' }, d: { description: '', type: 'number' } });
  const raw = encode({ a: 42, b: 2n ** 60n, c: 0.25, d: '12345678901234567890.5' }, { useBigInt64: true });
  assert.deepEqual(decodeObject({ msgpack: Buffer.from(raw) }, numbers), { a: 42, b: 2 ** 60, c: 0.25, d: Number('12345678901234567890.5') });
});

test('a dynamic value travels as [type JSON, value]', () => {
  const wire = encodeDynamicValue({ anything: 'text' }, type);
  const raw = decode(wire.msgpack!) as Record<string, unknown>;
  const [typeBytes, value] = raw.anything as [Uint8Array, unknown];
  assert.equal(Buffer.from(typeBytes).toString(), '"string"');
  assert.equal(value, 'text');
});

test('a null object and an empty DynamicValue decode as null', () => {
  assert.equal(decodeObject({ msgpack: Buffer.from(encode(null)) }, type), null);
  assert.equal(decodeObject({ msgpack: Buffer.alloc(0), json: Buffer.alloc(0) }, type), null);
  assert.equal(decode(encodeDynamicValue(null, type).msgpack!), null);
});

test('the json encoding decodes with the same schema (dynamic as value and type)', () => {
  const json = JSON.stringify({ id: 'j', count: 2, names: ['a'], anything: { value: [1, 'x'], type: ['tuple', ['number', 'string']] } });
  const value = decodeObject({ json: Buffer.from(json) }, type);
  assert.equal(value?.id, 'j');
  assert.deepEqual(value?.names, ['a']);
  assert.deepEqual(value?.anything, [1, 'x']);
  assert.equal(value?.owner, null);
});

test('fromJson fills missing attributes and drops unknown ones (state upgrade)', () => {
  assert.deepEqual(fromJson({ id: 's', gone: 1 }, objectType({ id: attributes.id!, count: attributes.count! })), { id: 's', count: null });
});

test('a value of the wrong type is an error, not a silent coercion', () => {
  assert.throws(() => encodeDynamicValue({ count: 'three' }, type), /expected a number/);
  assert.throws(() => decodeObject({ msgpack: Buffer.from(encode({ enabled: 'yes' })) }, type), /expected a bool/);
});
