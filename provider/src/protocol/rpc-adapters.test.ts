import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decode } from '@msgpack/msgpack';
import { UNKNOWN, type ObjectValue, type ProviderDefinition, type ResourceType } from '../framework/types.ts';
import { createContext } from './context.ts';
import { decodeObject, encodeDynamicValue } from './cty.ts';
import { stderrLogger } from './log.ts';
import { applyResourceChange } from './rpc-apply.ts';
import { planResourceChange, upgradeResourceState } from './rpc-resource.ts';
import { objectType } from './types-of.ts';

const widget: ResourceType<string> = {
  schema: { version: 0, description: '', attributes: { id: { description: '', type: 'string', computed: true }, name: { description: '', type: 'string', required: true } } },
  async create(_client, planned) {
    if (planned.name === 'boom') throw new Error('the API is down');
    return { value: { ...planned, id: UNKNOWN }, diagnostics: [] }; // a resource bug: id left unknown
  },
  async read(_client, state) { return { value: state, diagnostics: [] }; },
  async update(_client, planned) { return { value: planned, diagnostics: [] }; },
  async delete() { return { diagnostics: [] }; },
  async importState(_client, id) { return { value: { id }, diagnostics: [] }; },
};
const definition: ProviderDefinition<string> = {
  typeName: 'demo',
  schema: { version: 0, description: '', attributes: {} },
  async configure() { return { value: 'client', diagnostics: [] }; },
  resources: { widget },
  dataSources: {},
};
const type = objectType(widget.schema.attributes);
const quiet = stderrLogger('test', () => undefined);

function configuredContext() {
  const context = createContext(definition, quiet);
  context.configured = { client: 'client' };
  return context;
}

test('an unknown left after apply is stored as null and reported at its attribute', async () => {
  const planned: ObjectValue = { id: UNKNOWN, name: 'w' };
  const response = await applyResourceChange(configuredContext())({
    type_name: 'demo_widget', prior_state: encodeDynamicValue(null, type), planned_state: encodeDynamicValue(planned, type),
    config: encodeDynamicValue({ id: null, name: 'w' }, type), planned_private: Buffer.alloc(0),
  });
  assert.deepEqual(decodeObject(response.new_state, type), { id: null, name: 'w' });
  assert.equal(response.diagnostics[0]?.severity, 'ERROR');
  assert.deepEqual(response.diagnostics[0]?.attribute?.steps, [{ attribute_name: 'id' }]);
  assert.match(response.diagnostics[0]?.detail ?? '', /demo_widget left id unknown/);
});

test('a create that throws answers with an error diagnostic and no object', async () => {
  const response = await applyResourceChange(configuredContext())({
    type_name: 'demo_widget', prior_state: null, planned_state: encodeDynamicValue({ id: UNKNOWN, name: 'boom' }, type),
    config: encodeDynamicValue({ id: null, name: 'boom' }, type), planned_private: Buffer.alloc(0),
  });
  assert.equal(decode(response.new_state.msgpack!), null);
  assert.equal(response.diagnostics[0]?.summary, 'Creating demo_widget failed');
  assert.equal(response.diagnostics[0]?.detail, 'the API is down');
});

test('a planned destroy (proposed null) plans null', () => {
  const response = planResourceChange(configuredContext())({
    type_name: 'demo_widget', prior_state: encodeDynamicValue({ id: 'w1', name: 'w' }, type), proposed_new_state: encodeDynamicValue(null, type),
    config: encodeDynamicValue(null, type), prior_private: Buffer.alloc(0),
  });
  assert.equal(decode(response.planned_state.msgpack!), null);
});

test('upgrade reads the stored JSON, filling missing attributes with null and dropping unknown ones', () => {
  const response = upgradeResourceState(configuredContext())({ type_name: 'demo_widget', version: '0', raw_state: { json: Buffer.from('{"id":"w1","legacy":true}') } });
  assert.deepEqual(decode(response.upgraded_state.msgpack!), { id: 'w1', name: null });
});

test('resources are found by their full type name', () => {
  assert.throws(() => planResourceChange(configuredContext())({ type_name: 'demo_nope', prior_state: null, proposed_new_state: null, config: null, prior_private: Buffer.alloc(0) }), /no resource type "demo_nope"/);
});
