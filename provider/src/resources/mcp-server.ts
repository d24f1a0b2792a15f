// tollgate_mcp_server: an MCP server proxy (POST/GET/PATCH/DELETE /api/mcp). `discover_tools` runs tool discovery
// (POST /api/mcp/:id/tools) after create and after a URL change, so `tools` lists the catalog keys can grant.
import type { z } from 'zod';
import { mcpCreateSchema, type mcpServerRecordSchema } from '@tollgate/contract';
import { UNKNOWN, type ObjectValue, type ResourceType } from '../framework/types.ts';
import type { ApiClient } from '@tollgate/contract';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { describeOf } from '../schema/describe.ts';
import { inboundAuthAttribute, inboundAuthBody, inboundAuthState, planInboundAuth, validateInboundAuth } from './inbound-auth.ts';
import { goneIsFine, importById, readOrGone, secretAttributes, writeOnlySecret } from './common.ts';
import { DEFAULTS } from './defaults.ts';
import { bool, str } from './values.ts';

type McpServerRecord = z.output<typeof mcpServerRecordSchema>;
const shape = mcpCreateSchema.shape;
const action = (verb: string) => ({ action: `${verb} the MCP server`, rename: { authToken: 'auth_token' } });

function state(rec: McpServerRecord, prior: ObjectValue): ObjectValue {
  return {
    id: rec.id,
    name: rec.name,
    url: rec.url,
    auth_type: rec.authType,
    // Never returned by the API: what terraform last sent is what it knows.
    auth_token: prior.auth_token ?? null,
    auth_token_wo: null,
    auth_token_wo_version: prior.auth_token_wo_version ?? null,
    auth: inboundAuthState(rec.auth),
    discover_tools: prior.discover_tools ?? null,
    proxy_host: rec.proxyHost,
    tools: rec.tools.map((t) => t.name),
  };
}

function body(planned: ObjectValue, config: ObjectValue, prior?: ObjectValue): Record<string, unknown> {
  const token = writeOnlySecret(planned, config, 'auth_token', prior);
  return {
    name: str(planned, 'name'),
    url: str(planned, 'url'),
    authType: str(planned, 'auth_type') ?? DEFAULTS.mcpAuthType,
    ...(token !== undefined ? { authToken: token } : {}),
    auth: inboundAuthBody(planned),
  };
}

async function discover(client: ApiClient, id: string): Promise<string[] | { error: ReturnType<typeof apiErrorDiagnostic> }> {
  const r = await client.post<{ tools: { name: string }[] }>(`/api/mcp/${id}/tools`);
  if (!r.ok) return { error: apiErrorDiagnostic(r.error, { action: 'Discovering the MCP server\'s tools' }) };
  return r.body.tools.map((t) => t.name);
}

async function fetchRecord(client: ApiClient, id: string) {
  return client.get<McpServerRecord & { pin?: unknown }>(`/api/mcp/${id}`);
}

async function settle(client: ApiClient, id: string, planned: ObjectValue, runDiscovery: boolean) {
  const diagnostics = [];
  if (runDiscovery) {
    const d = await discover(client, id);
    if ('error' in d) diagnostics.push(d.error);
  }
  const r = await fetchRecord(client, id);
  if (!r.ok) return { diagnostics: [...diagnostics, apiErrorDiagnostic(r.error, action('Reading'))] };
  const { pin: _pin, ...rec } = r.body;
  return { value: state(rec, planned), diagnostics };
}

export const mcpServerResource: ResourceType<ApiClient> = {
  schema: {
    version: 0,
    description: 'An MCP server behind the gateway: clients call its proxy host with a Tollgate key, the gateway forwards to url.',
    attributes: {
      id: { type: 'string', computed: true, stable: true, description: 'The server id (uuid).' },
      name: { type: 'string', required: true, description: describeOf(shape.name) },
      url: { type: 'string', required: true, description: describeOf(shape.url) },
      auth_type: { type: 'string', optional: true, computed: true, description: `${describeOf(shape.authType)} Default ${DEFAULTS.mcpAuthType}.` },
      ...secretAttributes('auth_token', describeOf(shape.authToken)),
      auth: inboundAuthAttribute,
      discover_tools: { type: 'bool', optional: true, description: 'Run tool discovery after create and after a URL change, so that tools lists the upstream catalog.' },
      proxy_host: { type: 'string', computed: true, stable: true, description: '<id>.<proxy domain>: the host clients call.' },
      tools: { type: ['list', 'string'], computed: true, description: 'Names of the discovered tools (empty until discovery runs).' },
    },
  },
  validate: validateInboundAuth,
  modifyPlan({ prior, config, planned }) {
    const out: ObjectValue = { ...planned, auth_type: config.auth_type ?? DEFAULTS.mcpAuthType, auth: planInboundAuth(config.auth) };
    const rediscover = bool(config, 'discover_tools') === true && (!prior || prior.url !== config.url || prior.discover_tools !== true);
    out.tools = rediscover ? UNKNOWN : (prior?.tools ?? []);
    return { planned: out };
  },
  async create(client, planned, config) {
    const r = await client.post<{ server: McpServerRecord }>('/api/mcp', body(planned, config));
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Creating'))] };
    return settle(client, r.body.server.id, planned, bool(planned, 'discover_tools') === true);
  },
  read: (client, prior) => readOrGone(() => fetchRecord(client, String(prior.id)), ({ pin: _pin, ...rec }) => state(rec, prior), action('Reading')),
  async update(client, planned, prior, config) {
    const id = String(prior.id);
    const r = await client.patch(`/api/mcp/${id}`, body(planned, config, prior));
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Updating'))] };
    return settle(client, id, planned, planned.tools === UNKNOWN);
  },
  delete: (client, prior) => goneIsFine(client.delete(`/api/mcp/${String(prior.id)}`), action('Deleting')),
  importState: importById,
};
