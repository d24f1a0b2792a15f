// tollgate_mcp_resource: a synthetic static resource served by an MCP proxy (/api/mcp/:id/resources/:rid).
// Import id: <server id>/<resource id>.
import type { z } from 'zod';
import { resourceCreateSchema, type resourceRecordSchema } from '@tollgate/contract';
import type { ObjectValue, ResourceType } from '../framework/types.ts';
import type { ApiClient } from '@tollgate/contract';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { describeOf } from '../schema/describe.ts';
import { goneIsFine, readOrGone, splitImportId } from './common.ts';
import { DEFAULTS } from './defaults.ts';
import { str } from './values.ts';

type ResourceRecord = z.output<typeof resourceRecordSchema>;
const shape = resourceCreateSchema.shape;
const action = (verb: string) => ({ action: `${verb} the MCP resource`, rename: { mimeType: 'mime_type' } });
const path = (s: ObjectValue) => `/api/mcp/${String(s.mcp_server_id)}/resources/${String(s.id)}`;

function state(rec: ResourceRecord, serverId: string): ObjectValue {
  return {
    id: rec.id, mcp_server_id: serverId, uri: rec.uri, name: rec.name,
    description: rec.description ?? null, mime_type: rec.mimeType, content: rec.content,
  };
}

function body(s: ObjectValue) {
  return { uri: str(s, 'uri'), name: str(s, 'name'), description: str(s, 'description'), mimeType: str(s, 'mime_type') ?? DEFAULTS.mimeType, content: str(s, 'content') };
}

export const mcpResourceResource: ResourceType<ApiClient> = {
  schema: {
    version: 0,
    description: 'A static resource an MCP proxy serves itself (resources/list and resources/read) without contacting the upstream.',
    attributes: {
      id: { type: 'string', computed: true, stable: true, description: 'The resource id.' },
      mcp_server_id: { type: 'string', required: true, forceNew: true, description: 'Id of the MCP server that serves it. Changing it replaces the resource.' },
      uri: { type: 'string', required: true, description: describeOf(shape.uri) },
      name: { type: 'string', required: true, description: describeOf(shape.name) },
      description: { type: 'string', optional: true, description: describeOf(shape.description) },
      mime_type: { type: 'string', optional: true, computed: true, description: describeOf(shape.mimeType) },
      content: { type: 'string', required: true, description: describeOf(shape.content) },
    },
  },
  modifyPlan({ config, planned }) {
    return { planned: { ...planned, mime_type: config.mime_type ?? DEFAULTS.mimeType } };
  },
  async create(client, planned) {
    const serverId = String(planned.mcp_server_id);
    const r = await client.post<ResourceRecord>(`/api/mcp/${serverId}/resources`, body(planned));
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Creating'))] };
    return { value: state(r.body, serverId), diagnostics: [] };
  },
  read: (client, prior) => readOrGone(() => client.get<ResourceRecord>(path(prior)), (rec) => state(rec, String(prior.mcp_server_id)), action('Reading')),
  async update(client, planned, prior) {
    const r = await client.patch<ResourceRecord>(path(prior), body(planned));
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Updating'))] };
    return { value: state(r.body, String(prior.mcp_server_id)), diagnostics: [] };
  },
  delete: (client, prior) => goneIsFine(client.delete(path(prior)), action('Deleting')),
  async importState(_client, id) {
    const ids = splitImportId(id, '<mcp server id>/<resource id>');
    return ids.value ? { value: { mcp_server_id: ids.value[0], id: ids.value[1] }, diagnostics: [] } : { diagnostics: ids.diagnostics };
  },
};
