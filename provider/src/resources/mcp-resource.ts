// tollgate_mcp_resource: a synthetic static resource served by an MCP proxy (/api/mcp/:id/resources/:rid).
// Import id: <server id>/<resource id>.
import { resourceCreateSchema, resourceRecordSchema, type ApiClient, type ResponseOf } from '@tollgate/contract';
import type { ObjectValue, ResourceType } from '../framework/types.ts';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { deriveResource } from '../schema/from-contract.ts';
import { goneIsFine, readOrGone, splitImportId } from './common.ts';
import { DEFAULTS } from './defaults.ts';

export const MCP_RESOURCE = deriveResource({
  description: 'A static resource an MCP proxy serves itself (resources/list and resources/read) without contacting the upstream.',
  body: resourceCreateSchema,
  record: resourceRecordSchema,
  before: {
    id: { from: 'id', stable: true, description: 'The resource id.' },
    mcp_server_id: { type: 'string', required: true, forceNew: true, description: 'Id of the MCP server that serves it. Changing it replaces the resource.' },
  },
});

const action = (verb: string) => ({ action: `${verb} the MCP resource`, rename: MCP_RESOURCE.renames });
const params = (s: ObjectValue) => ({ id: String(s.mcp_server_id), rid: String(s.id) });

function state(rec: ResponseOf<'GET /api/mcp/:id/resources/:rid'>, prior: ObjectValue): ObjectValue {
  return { ...MCP_RESOURCE.state(rec, prior), mcp_server_id: String(prior.mcp_server_id) };
}

export const mcpResourceResource: ResourceType<ApiClient> = {
  schema: MCP_RESOURCE.schema,
  modifyPlan({ config, planned }) {
    return { planned: { ...planned, mime_type: config.mime_type ?? DEFAULTS.mimeType } };
  },
  async create(client, planned) {
    const r = await client.call('POST /api/mcp/:id/resources', { params: { id: String(planned.mcp_server_id) }, body: MCP_RESOURCE.body(planned) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Creating'))] };
    return { value: state(r.body, planned), diagnostics: [] };
  },
  read: (client, prior) => readOrGone(() => client.call('GET /api/mcp/:id/resources/:rid', { params: params(prior) }), (rec) => state(rec, prior), action('Reading')),
  async update(client, planned, prior) {
    const r = await client.call('PATCH /api/mcp/:id/resources/:rid', { params: params(prior), body: MCP_RESOURCE.body(planned) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Updating'))] };
    return { value: state(r.body, prior), diagnostics: [] };
  },
  delete: (client, prior) => goneIsFine(client.call('DELETE /api/mcp/:id/resources/:rid', { params: params(prior) }), action('Deleting')),
  async importState(_client, id) {
    const ids = splitImportId(id, '<mcp server id>/<resource id>');
    return ids.value ? { value: { mcp_server_id: ids.value[0], id: ids.value[1] }, diagnostics: [] } : { diagnostics: ids.diagnostics };
  },
};
