// A test-only provider for the protocol layer's end-to-end test: `toy_thing` objects kept in a JSON file named by
// the provider's `file` attribute. It exercises every path the real resources will: computed ids (stable) and
// revisions (not), a forceNew attribute, a sensitive one, a write-only one, a nested attribute, validation with
// an attribute path, import, and a data source.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Diagnostic, ObjectValue, ProviderDefinition, ResourceType, Schema, DataSourceType } from '../../framework/types.ts';

interface Store { file: string }
type Things = Record<string, ObjectValue>;

function load(store: Store): Things {
  try {
    const parsed: unknown = JSON.parse(readFileSync(store.file, 'utf8'));
    return parsed !== null && typeof parsed === 'object' ? (parsed as { things?: Things }).things ?? {} : {};
  } catch {
    return {};
  }
}

function save(store: Store, things: Things): void {
  writeFileSync(store.file, `${JSON.stringify({ things }, null, 2)}\n`);
}

const thingSchema: Schema = {
  version: 0,
  description: 'A toy object kept in a JSON file.',
  attributes: {
    id: { description: 'Generated identifier.', type: 'string', computed: true, stable: true },
    name: { description: 'Display name.', type: 'string', required: true },
    kind: { description: 'Changing it replaces the object.', type: 'string', optional: true, forceNew: true },
    secret: { description: 'Kept in state, never shown.', type: 'string', optional: true, sensitive: true },
    password: { description: 'Write-only: used at apply, never stored.', type: 'string', optional: true, writeOnly: true },
    tags: { description: 'Labels.', type: ['map', 'string'], optional: true },
    revision: { description: 'Incremented by every update.', type: 'number', computed: true },
    owner: {
      description: 'Owner contact.',
      optional: true,
      nested: { nesting: 'single', attributes: { email: { description: 'Email address.', type: 'string', required: true } } },
    },
  },
};

function validateThing(config: ObjectValue): Diagnostic[] {
  const name = config.name;
  if (typeof name === 'string' && name.includes('!')) {
    return [{ severity: 'error', summary: 'Invalid name', detail: `A toy name cannot contain "!" (got ${JSON.stringify(name)}).`, path: ['name'] }];
  }
  return [];
}

function stored(planned: ObjectValue, id: string, revision: number): ObjectValue {
  return { ...planned, id, revision, password: null };
}

const thing: ResourceType<Store> = {
  schema: thingSchema,
  validate: validateThing,
  async create(store, planned) {
    const things = load(store);
    const id = `thing-${randomBytes(4).toString('hex')}`;
    things[id] = stored(planned, id, 1);
    save(store, things);
    return { value: things[id], diagnostics: [] };
  },
  async read(store, state) {
    const found = load(store)[String(state.id)];
    return { value: found ?? null, diagnostics: [] };
  },
  async update(store, planned, prior) {
    const things = load(store);
    const id = String(prior.id);
    const revision = typeof prior.revision === 'number' ? prior.revision + 1 : 1;
    things[id] = stored(planned, id, revision);
    save(store, things);
    return { value: things[id], diagnostics: [] };
  },
  async delete(store, prior) {
    const things = load(store);
    delete things[String(prior.id)];
    save(store, things);
    return { diagnostics: [] };
  },
  async importState(store, id) {
    if (load(store)[id] === undefined) return { diagnostics: [{ severity: 'error', summary: 'No such toy', detail: `Nothing with id ${id}.` }] };
    return { value: { id }, diagnostics: [] };
  },
};

const lookup: DataSourceType<Store> = {
  schema: {
    version: 0,
    description: 'Looks up a toy by id.',
    attributes: {
      id: { description: 'The id to look up.', type: 'string', required: true },
      name: { description: 'Its name.', type: 'string', computed: true },
    },
  },
  async read(store, config) {
    const found = load(store)[String(config.id)];
    if (found === undefined) return { diagnostics: [{ severity: 'error', summary: 'No such toy', path: ['id'] }] };
    return { value: { id: config.id ?? null, name: found.name ?? null }, diagnostics: [] };
  },
};

export const toyProvider: ProviderDefinition<Store> = {
  typeName: 'toy',
  schema: {
    version: 0,
    description: 'Toy provider for protocol tests.',
    attributes: { file: { description: 'The JSON file holding the toys.', type: 'string', required: true } },
  },
  async configure(config) {
    if (typeof config.file !== 'string') return { diagnostics: [{ severity: 'error', summary: 'file must be known', path: ['file'] }] };
    return { value: { file: config.file }, diagnostics: [] };
  },
  resources: { toy_thing: thing },
  dataSources: { toy_lookup: lookup },
};
