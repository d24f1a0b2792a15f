// tollgate_llm_proxy: an LLM provider behind the gateway (POST/GET/PATCH/DELETE /api/llm). The REST field
// `provider` is `llm_provider` here: terraform reserves `provider` as a meta-argument.
import { createLlmProxySchema, llmProxyRecordSchema, normalizeModels, type ApiClient, type ResponseOf } from '@tollgate/contract';
import type { ObjectValue, ResourceType, Value } from '../framework/types.ts';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { deriveResource } from '../schema/from-contract.ts';
import { planInboundAuth, validateInboundAuth } from './inbound-auth.ts';
import { goneIsFine, importById, readOrGone, writeOnlySecret } from './common.ts';
import { deepEqual } from '../framework/values.ts';
import { DEFAULTS } from './defaults.ts';
import { orElse, strings } from './values.ts';

export const LLM_PROXY = deriveResource({
  description: 'An LLM proxy: clients call its proxy host with the provider\'s own API and a Tollgate key; the gateway adds the provider key.',
  body: createLlmProxySchema,
  record: llmProxyRecordSchema,
  before: { id: { from: 'id', stable: true, description: 'The proxy id (uuid).' } },
  facts: {
    llm_provider: { field: 'provider', note: 'The REST field is provider; terraform reserves that name.' },
    provider_key: { secret: true },
    auth: { nested: { jwks_json: { note: 'Use jsonencode().' } } },
  },
  after: { proxy_host: { from: 'proxyHost', stable: true, description: '<id>.<proxy domain>: the host clients call.' } },
});

const action = (verb: string) => ({ action: `${verb} the LLM proxy`, rename: LLM_PROXY.renames });

function planBudget(v: Value | undefined): Value {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v ?? null;
  return { ...(v as ObjectValue), hard_block: (v as ObjectValue).hard_block ?? DEFAULTS.hardBlock };
}

function state(rec: ResponseOf<'PATCH /api/llm/:id'>, prior: ObjectValue): ObjectValue {
  const priorModels = strings(prior, 'allowed_models');
  // The server dedupes the list; a configuration that lists a model twice is the same configuration.
  const sameModels = priorModels !== null && deepEqual(normalizeModels(priorModels), rec.allowedModels);
  return { ...LLM_PROXY.state(rec, prior), allowed_models: sameModels ? priorModels : rec.allowedModels };
}

function body(planned: ObjectValue, config: ObjectValue, prior?: ObjectValue) {
  const key = writeOnlySecret(planned, config, 'provider_key', prior);
  return { ...LLM_PROXY.body(planned), ...(key !== undefined ? { providerKey: key } : {}) };
}

async function refresh(client: ApiClient, id: string, planned: ObjectValue) {
  const r = await client.call('GET /api/llm/:id', { params: { id } });
  if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Reading'))] };
  return { value: state(r.body, planned), diagnostics: [] };
}

export const llmProxyResource: ResourceType<ApiClient> = {
  schema: LLM_PROXY.schema,
  validate: validateInboundAuth,
  modifyPlan({ config, planned }) {
    return {
      planned: {
        ...planned,
        allowed_models: orElse(config.allowed_models, [...DEFAULTS.allowedModels]),
        log_conversations: config.log_conversations ?? DEFAULTS.logConversations,
        auth: planInboundAuth(config.auth),
        budget: planBudget(config.budget),
      },
    };
  },
  async create(client, planned, config) {
    const r = await client.call('POST /api/llm', { body: body(planned, config) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Creating'))] };
    return refresh(client, r.body.id, planned);
  },
  read: (client, prior) => readOrGone(() => client.call('GET /api/llm/:id', { params: { id: String(prior.id) } }), (rec) => state(rec, prior), action('Reading')),
  async update(client, planned, prior, config) {
    const id = String(prior.id);
    const r = await client.call('PATCH /api/llm/:id', { params: { id }, body: body(planned, config, prior) });
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Updating'))] };
    return refresh(client, id, planned);
  },
  delete: (client, prior) => goneIsFine(client.call('DELETE /api/llm/:id', { params: { id: String(prior.id) } }), action('Deleting')),
  importState: importById,
};
