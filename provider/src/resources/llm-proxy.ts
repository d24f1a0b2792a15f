// tollgate_llm_proxy: an LLM provider behind the gateway (POST/GET/PATCH/DELETE /api/llm). The REST field
// `provider` is `llm_provider` here: terraform reserves `provider` as a meta-argument.
import type { z } from 'zod';
import { BUDGET_PERIODS, PROVIDER_IDS, budgetSchema, createLlmProxySchema, normalizeModels, type llmProxyWithPinSchema } from '@tollgate/contract';
import type { Attribute, ObjectValue, ResourceType, Value } from '../framework/types.ts';
import type { ApiClient } from '@tollgate/contract';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { describeOf } from '../schema/describe.ts';
import { inboundAuthAttribute, inboundAuthBody, inboundAuthState, planInboundAuth, validateInboundAuth } from './inbound-auth.ts';
import { goneIsFine, importById, readOrGone, secretAttributes, writeOnlySecret } from './common.ts';
import { deepEqual } from '../framework/values.ts';
import { DEFAULTS } from './defaults.ts';
import { bool, num, obj, orElse, str, strings } from './values.ts';

type LlmProxyRecord = z.output<typeof llmProxyWithPinSchema>;
const shape = createLlmProxySchema.shape;
const bshape = budgetSchema.shape;
const RENAME = { provider: 'llm_provider', providerKey: 'provider_key' };
const action = (verb: string) => ({ action: `${verb} the LLM proxy`, rename: RENAME });

export const budgetAttribute: Attribute = {
  description: `${describeOf(shape.budget)}`,
  optional: true,
  nested: {
    nesting: 'single',
    attributes: {
      period: { type: 'string', required: true, description: `${describeOf(bshape.period)} One of ${BUDGET_PERIODS.join(', ')}.` },
      cap_usd: { type: 'number', required: true, description: describeOf(bshape.capUsd) },
      hard_block: { type: 'bool', optional: true, computed: true, description: `${describeOf(bshape.hardBlock)} Default ${DEFAULTS.hardBlock}.` },
    },
  },
};

function planBudget(v: Value | undefined): Value {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v ?? null;
  return { ...(v as ObjectValue), hard_block: (v as ObjectValue).hard_block ?? DEFAULTS.hardBlock };
}

function budgetBody(state: ObjectValue) {
  const b = obj(state, 'budget');
  return b ? { period: str(b, 'period'), capUsd: num(b, 'cap_usd'), hardBlock: bool(b, 'hard_block') ?? DEFAULTS.hardBlock } : null;
}

function state(rec: LlmProxyRecord, prior: ObjectValue): ObjectValue {
  const priorModels = strings(prior, 'allowed_models');
  // The server dedupes the list; a configuration that lists a model twice is the same configuration.
  const sameModels = priorModels !== null && deepEqual(normalizeModels(priorModels), rec.allowedModels);
  return {
    id: rec.id,
    name: rec.name,
    llm_provider: rec.provider,
    provider_key: prior.provider_key ?? null,
    provider_key_wo: null,
    provider_key_wo_version: prior.provider_key_wo_version ?? null,
    allowed_models: sameModels ? priorModels : rec.allowedModels,
    default_model: rec.defaultModel,
    log_conversations: rec.logConversations,
    auth: inboundAuthState(rec.auth),
    budget: rec.budget ? { period: rec.budget.period, cap_usd: rec.budget.capUsd, hard_block: rec.budget.hardBlock } : null,
    proxy_host: rec.proxyHost,
  };
}

function body(planned: ObjectValue, config: ObjectValue, prior?: ObjectValue): Record<string, unknown> {
  const key = writeOnlySecret(planned, config, 'provider_key', prior);
  return {
    name: str(planned, 'name'),
    provider: str(planned, 'llm_provider'),
    allowedModels: strings(planned, 'allowed_models') ?? DEFAULTS.allowedModels,
    defaultModel: str(planned, 'default_model'),
    logConversations: bool(planned, 'log_conversations') ?? DEFAULTS.logConversations,
    ...(key !== undefined ? { providerKey: key } : {}),
    auth: inboundAuthBody(planned),
    budget: budgetBody(planned),
  };
}

const get = (client: ApiClient, id: string) => client.get<LlmProxyRecord>(`/api/llm/${id}`);
const withoutPin = ({ pin: _pin, ...rec }: LlmProxyRecord) => rec as LlmProxyRecord;

async function refresh(client: ApiClient, id: string, planned: ObjectValue) {
  const r = await get(client, id);
  if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Reading'))] };
  return { value: state(withoutPin(r.body), planned), diagnostics: [] };
}

export const llmProxyResource: ResourceType<ApiClient> = {
  schema: {
    version: 0,
    description: 'An LLM proxy: clients call its proxy host with the provider\'s own API and a Tollgate key; the gateway adds the provider key.',
    attributes: {
      id: { type: 'string', computed: true, stable: true, description: 'The proxy id (uuid).' },
      name: { type: 'string', required: true, description: describeOf(shape.name) },
      llm_provider: { type: 'string', required: true, description: `The REST field provider: one of ${PROVIDER_IDS.join(', ')}.` },
      ...secretAttributes('provider_key', describeOf(shape.providerKey)),
      allowed_models: { type: ['list', 'string'], optional: true, computed: true, description: describeOf(shape.allowedModels) },
      default_model: { type: 'string', optional: true, description: describeOf(shape.defaultModel) },
      log_conversations: { type: 'bool', optional: true, computed: true, description: `${describeOf(shape.logConversations)} Default ${DEFAULTS.logConversations}.` },
      auth: inboundAuthAttribute,
      budget: budgetAttribute,
      proxy_host: { type: 'string', computed: true, stable: true, description: '<id>.<proxy domain>: the host clients call.' },
    },
  },
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
    const r = await client.post<LlmProxyRecord>('/api/llm', body(planned, config));
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Creating'))] };
    return refresh(client, r.body.id, planned);
  },
  read: (client, prior) => readOrGone(() => get(client, String(prior.id)), (rec) => state(withoutPin(rec), prior), action('Reading')),
  async update(client, planned, prior, config) {
    const id = String(prior.id);
    const r = await client.patch(`/api/llm/${id}`, body(planned, config, prior));
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action('Updating'))] };
    return refresh(client, id, planned);
  },
  delete: (client, prior) => goneIsFine(client.delete(`/api/llm/${String(prior.id)}`), action('Deleting')),
  importState: importById,
};
