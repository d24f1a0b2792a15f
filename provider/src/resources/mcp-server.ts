// tollgate_mcp_server: an MCP server proxy (POST/GET/PATCH/DELETE /api/mcp). `discover_tools` runs tool discovery
// (POST /api/mcp/:id/tools) after create and after a URL change, so `tools` lists the catalog keys can grant.
import { mcpCreateSchema, mcpServerRecordSchema, type ApiClient, type ResponseOf } from '@tollgate/contract';
import { UNKNOWN, type ObjectValue, type ResourceType } from '../framework/types.ts';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { deriveResource } from '../schema/from-contract.ts';
import { planInboundAuth, validateInboundAuth } from './inbound-auth.ts';
import { goneIsFine, importById, readOrGone, writeOnlySecret } from './common.ts';
import { DEFAULTS } from './defaults.ts';
import { bool } from './values.ts';

export const MCP_SERVER = deriveResource({
  description: 'An MCP server behind the gateway: clients call its proxy host with a Tollgate key, the gateway forwards to url.',
  body: mcpCreateSchema,
  record: mcpServerRecordSchema,
  before: { id: { from: 'id', stable: true, description: 'The server id (uuid).' } },
  facts: { auth_token: { secret: true }, auth: { nested: { jwks_json: { note: 'Use jsonencode().' } } } },
  after: {
    discover_tools: { type: 'bool', optional: true, description: 'Run tool discovery after create and after a URL change, so that tools lists the upstream catalog.' },
    proxy_host: { from: 'proxyHost', stable: true },
    tools: { from: 'tools', type: ['list', 'string'], description: 'Names of the discovered tools (empty until discovery runs).' },
  },
});

const action = (verb: string) => ({ action: `${verb} the MCP server`, rename: MCP_SERVER.renames });

function state(rec: ResponseOf<'GET /api/mcp/:id'>, prior: ObjectValue): ObjectValue {
  return { ...MCP_SERVER.state(rec, prior), discover_tools: prior.discover_tools ?? null, tools: rec.tools.map((t) => t.name) };
}

function body(planned: ObjectValue, config: ObjectValue, prior?: ObjectValue) {
  const token = writeOnlySecret(planned, config, 'auth_token', prior);
  return { ...MCP_SERVER.body(planned), ...(token !== undefined ? { authToken: token } : {}) };
}

async function settle(client: ApiClient, id: string, planned: ObjectValue, runDiscovery: boolean) {
  const diagnostics = [];
  if (runDiscovery) {
    const d = await client.call('POST /api/mcp/:id/tools', { params: { id } });
    if (!d.ok) diagnostics.push(apiErrorDiagnostic(d.error, { action: 'Discovering the MCP server\'s tools' }));
  }
  const r = await client.call('GET /api/mcp/:id', { params: { id } });
  if (!r.ok) return { diagnostics: [...diagnostics, apiErrorDiagnostic(r.error, action('Reading'))] };
  return { value: state(r.body, planned), diagnostics };
}

export const mcpServerResource: ResourceType<ApiClient> = {
  schema: MCP_SERVER.schema,
  validate: validateInboundAuth,
  modifyPlan({ prior, config, planned }) {
    const out: ObjectValue = {
      ...planned, auth_type: config.auth_type ?? DEFAULTS.mcpAuthType, tool_pinning: config.tool_pinning ?? DEFAULTS.mcpToolPinning, auth: planInboundAuth(config.auth),
    };
    const rediscover = bool(config, 'discover_tools') === true && (!prior || prior.url !== config.url || prior.discover_tools !== true);
    out.tools = rediscover ? UNKNOWN : (prior?.tools ?? []);
    return { planned: out };
  },
  async create(client, planned, config) {
    const r = await client.call('POST /api/mcp', { body: body(planned, config) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Creating'))] };
    return settle(client, r.body.server.id, planned, bool(planned, 'discover_tools') === true);
  },
  read: (client, prior) => readOrGone(() => client.call('GET /api/mcp/:id', { params: { id: String(prior.id) } }), (rec) => state(rec, prior), action('Reading')),
  async update(client, planned, prior, config) {
    const id = String(prior.id);
    const r = await client.call('PATCH /api/mcp/:id', { params: { id }, body: body(planned, config, prior) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Updating'))] };
    return settle(client, id, planned, planned.tools === UNKNOWN);
  },
  delete: (client, prior) => goneIsFine(client.call('DELETE /api/mcp/:id', { params: { id: String(prior.id) } }), action('Deleting')),
  importState: importById,
};
