// tollgate_api_key: a client API key (POST/PATCH/DELETE /api/keys; read from the listing). The plaintext is only in
// the create answer, so `key` is known after create and kept in state as sensitive; an imported key has no key.
// The API stores tags, not the permission lists, so read compares tag sets: a configuration that produces the
// same tags (another order, a wildcard next to names) is not drift.
import type { z } from 'zod';
import { buildKeyTags, createKeyBodySchema, llmPermissionSchema, mcpPermissionSchema, nameTag, parseKeyTags, type createdKeySchema, type keyRecordSchema } from '@tollgate/contract';
import { UNKNOWN, type ObjectValue, type ResourceType } from '../framework/types.ts';
import type { ApiClient } from '@tollgate/contract';
import { goneIsFine, importById } from './common.ts';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { describeOf } from '../schema/describe.ts';
import { objects, orElse, str, strings } from './values.ts';

type KeyRecord = z.output<typeof keyRecordSchema>;
type CreatedKey = z.output<typeof createdKeySchema>;
const shape = createKeyBodySchema.shape;
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

async function find(client: ApiClient, id: string) {
  const r = await client.get<{ keys: KeyRecord[] }>('/api/keys');
  if (!r.ok) return r;
  const rec = r.body.keys.find((k) => k.id === id);
  return rec ? { ok: true as const, rec } : { ok: false as const, error: { status: 404, message: 'Key not found' } };
}

export const apiKeyResource: ResourceType<ApiClient> = {
  schema: {
    version: 0,
    description: 'A client API key with its permissions. The plaintext key is known after create and kept in the state as a sensitive value.',
    attributes: {
      id: { type: 'string', computed: true, stable: true, description: 'The key id (uuid).' },
      name: { type: 'string', required: true, forceNew: true, description: `${describeOf(shape.name)} Changing it replaces the key.` },
      mcp_permissions: {
        optional: true, computed: true, description: describeOf(shape.mcpPermissions),
        nested: { nesting: 'list', attributes: {
          id: { type: 'string', required: true, description: describeOf(mcpPermissionSchema.shape.id) },
          tools: { type: ['list', 'string'], optional: true, computed: true, description: describeOf(mcpPermissionSchema.shape.tools) },
          resources: { type: ['list', 'string'], optional: true, computed: true, description: describeOf(mcpPermissionSchema.shape.resources) },
        } },
      },
      llm_permissions: {
        optional: true, computed: true, description: describeOf(shape.llmPermissions),
        nested: { nesting: 'list', attributes: {
          id: { type: 'string', required: true, description: describeOf(llmPermissionSchema.shape.id) },
          models: { type: ['list', 'string'], required: true, description: describeOf(llmPermissionSchema.shape.models) },
        } },
      },
      custom_tags: { type: ['list', 'string'], optional: true, computed: true, description: describeOf(shape.customTags) },
      key: { type: 'string', computed: true, sensitive: true, stable: true, description: 'The plaintext key: known after create only (null after import).' },
      masked_key: { type: 'string', computed: true, stable: true, description: 'The key as listings show it.' },
    },
  },
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
    const r = await client.post<{ key: CreatedKey }>('/api/keys', { name: str(planned, 'name'), ...permissions(planned) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Creating'))] };
    const listed = await find(client, r.body.key.id);
    if (!listed.ok) return { diagnostics: [apiErrorDiagnostic(listed.error, action('Reading'))] };
    return { value: state(listed.rec, { ...planned, key: r.body.key.key }, listed.rec.key), diagnostics: [] };
  },
  async read(client, prior) {
    const r = await find(client, String(prior.id));
    if (r.ok) return { value: state(r.rec, prior, r.rec.key), diagnostics: [] };
    if (r.error.status === 404) return { value: null, diagnostics: [] };
    return { diagnostics: [apiErrorDiagnostic(r.error, action('Reading'))] };
  },
  async update(client, planned, prior) {
    const r = await client.patch<{ key: KeyRecord }>(`/api/keys/${String(prior.id)}`, permissions(planned));
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Updating'))] };
    return { value: state(r.body.key, planned, r.body.key.key), diagnostics: [] };
  },
  delete: (client, prior) => goneIsFine(client.delete(`/api/keys/${String(prior.id)}`), action('Deleting')),
  importState: importById,
};
