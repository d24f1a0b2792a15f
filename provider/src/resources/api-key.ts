// tollgate_api_key: a client API key (POST /api/keys, GET/PATCH/DELETE /api/keys/:id). The plaintext is only in
// the create answer, so `key` is known after create and kept in state as sensitive; an imported key has no key.
// The API stores tags, not the permission lists, so read compares tag sets: a configuration that produces the
// same tags (another order, a wildcard next to names) is not drift.
import { NOT_FOUND, buildKeyTags, createKeyBodySchema, createdKeySchema, keyRecordSchema, nameTag, parseKeyTags, type ApiClient } from '@tollgate/contract';
import { UNKNOWN, type ObjectValue, type ResourceType } from '../framework/types.ts';
import { goneIsFine, importById } from './common.ts';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { deriveResource } from '../schema/from-contract.ts';
import { objects, orElse, str, strings } from './values.ts';

export const API_KEY = deriveResource({
  description: 'A client API key with its permissions. The plaintext key is known after create and kept in the state as a sensitive value.',
  body: createKeyBodySchema,
  record: keyRecordSchema,
  before: { id: { from: 'id', stable: true, description: 'The key id (uuid).' } },
  facts: { name: { forceNew: true, note: 'Changing it replaces the key.' } },
  after: {
    key: { from: 'key', record: createdKeySchema, sensitive: true, stable: true, description: 'The plaintext key: known after create only (null after import).' },
    masked_key: { from: 'key', stable: true },
  },
});

const action = (verb: string) => ({ action: `${verb} the API key` });

function permissions(s: ObjectValue) {
  return {
    mcpPermissions: (objects(s, 'mcp_permissions') ?? []).map((p) => ({ id: str(p, 'id') ?? '', tools: strings(p, 'tools') ?? [], resources: strings(p, 'resources') ?? [] })),
    llmPermissions: (objects(s, 'llm_permissions') ?? []).map((p) => ({ id: str(p, 'id') ?? '', models: strings(p, 'models') ?? [] })),
    customTags: strings(s, 'custom_tags') ?? [],
  };
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((t) => y.has(t));
}

function state(rec: { id: string; tags: string[] }, prior: ObjectValue, masked: string): ObjectValue {
  const p = permissions(prior);
  const name = str(prior, 'name') ?? parseKeyTags(rec.tags).name ?? null;
  const base: ObjectValue = { id: rec.id, name, key: orElse(prior.key, null), masked_key: masked };
  if (name !== null && sameTags(buildKeyTags(nameTag(name), p.mcpPermissions, p.llmPermissions, p.customTags), rec.tags)) {
    return { ...base, mcp_permissions: orElse(prior.mcp_permissions, []), llm_permissions: orElse(prior.llm_permissions, []), custom_tags: orElse(prior.custom_tags, []) };
  }
  const parsed = parseKeyTags(rec.tags);
  return {
    ...base,
    name: parsed.name ?? name,
    mcp_permissions: parsed.mcpPermissions.map((g) => ({ id: g.id, tools: [...g.tools], resources: [...g.resources] })),
    llm_permissions: parsed.llmPermissions.map((g) => ({ id: g.id, models: [...g.models] })),
    custom_tags: parsed.customTags,
  };
}

export const apiKeyResource: ResourceType<ApiClient> = {
  schema: API_KEY.schema,
  modifyPlan({ config, planned }) {
    const mcp = (objects(config, 'mcp_permissions') ?? []).map((p): ObjectValue => ({ ...p, tools: orElse(p.tools, []), resources: orElse(p.resources, []) }));
    const out: ObjectValue = {
      ...planned,
      mcp_permissions: config.mcp_permissions === UNKNOWN ? UNKNOWN : mcp,
      llm_permissions: orElse(config.llm_permissions, []),
      custom_tags: orElse(config.custom_tags, []),
    };
    return { planned: out };
  },
  async create(client, planned) {
    const r = await client.call('POST /api/keys', { body: API_KEY.body(planned) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Creating'))] };
    const got = await client.call('GET /api/keys/:id', { params: { id: r.body.key.id } });
    if (!got.ok) return { diagnostics: [apiErrorDiagnostic(got.error, action('Reading'))] };
    return { value: state(got.body, { ...planned, key: r.body.key.key }, got.body.key), diagnostics: [] };
  },
  async read(client, prior) {
    const r = await client.call('GET /api/keys/:id', { params: { id: String(prior.id) } });
    if (r.ok) return { value: state(r.body, prior, r.body.key), diagnostics: [] };
    if (r.error.status === NOT_FOUND) return { value: null, diagnostics: [] };
    return { diagnostics: [apiErrorDiagnostic(r.error, action('Reading'))] };
  },
  async update(client, planned, prior) {
    const r = await client.call('PATCH /api/keys/:id', { params: { id: String(prior.id) }, body: API_KEY.body(planned) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Updating'))] };
    return { value: state(r.body.key, planned, r.body.key.key), diagnostics: [] };
  },
  delete: (client, prior) => goneIsFine(client.call('DELETE /api/keys/:id', { params: { id: String(prior.id) } }), action('Deleting')),
  importState: importById,
};
