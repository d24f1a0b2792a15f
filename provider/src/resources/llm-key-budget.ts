// tollgate_llm_key_budget: the per-key cap on one LLM proxy (GET/PUT/DELETE /api/llm/:id/keys/:credId/budget).
// Import id and id: <proxy id>/<key id>.
import { NOT_FOUND, budgetRecordSchema, budgetSchema, type ApiClient } from '@tollgate/contract';
import type { ObjectValue, ResourceType, Result } from '../framework/types.ts';
import { goneIsFine, splitImportId } from './common.ts';
import { apiErrorDiagnostic, errorDiagnostic } from '../client/diagnostics.ts';
import { deriveResource } from '../schema/from-contract.ts';
import { DEFAULTS } from './defaults.ts';

export const KEY_BUDGET = deriveResource({
  description: 'A per-key USD budget on one LLM proxy. When the proxy also has a cap, the stricter one wins.',
  body: budgetSchema,
  record: budgetRecordSchema,
  before: {
    id: { type: 'string', computed: true, stable: true, description: '<llm proxy id>/<api key id>.' },
    llm_proxy_id: { type: 'string', required: true, forceNew: true, description: 'The LLM proxy.' },
    api_key_id: { type: 'string', required: true, forceNew: true, description: 'The client API key (it must be granted models on the proxy).' },
  },
});

const action = (verb: string) => ({ action: `${verb} the per-key budget` });
const params = (s: ObjectValue) => ({ id: String(s.llm_proxy_id), credId: String(s.api_key_id) });

function state(s: ObjectValue, budget: Record<string, unknown>): ObjectValue {
  const ids = params(s);
  return { ...KEY_BUDGET.state(budget, s), id: `${ids.id}/${ids.credId}`, llm_proxy_id: ids.id, api_key_id: ids.credId };
}

async function fetchState(client: ApiClient, s: ObjectValue): Promise<Result<ObjectValue | null>> {
  const r = await client.call('GET /api/llm/:id/keys/:credId/budget', { params: params(s) });
  if (!r.ok) return r.error.status === NOT_FOUND ? { value: null, diagnostics: [] } : { diagnostics: [apiErrorDiagnostic(r.error, action('Reading'))] };
  // A key without a cap of its own: the budget was removed behind terraform's back.
  return { value: r.body.budget ? state(s, r.body.budget) : null, diagnostics: [] };
}

async function put(client: ApiClient, planned: ObjectValue, verb: string): Promise<Result<ObjectValue>> {
  const r = await client.call('PUT /api/llm/:id/keys/:credId/budget', { params: params(planned), body: KEY_BUDGET.body(planned) });
  if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action(verb))] };
  if (!r.body.budget) return { diagnostics: [errorDiagnostic(`${verb} the per-key budget failed`, 'PUT answered without the budget it saved')] };
  return { value: state(planned, r.body.budget), diagnostics: [] };
}

export const llmKeyBudgetResource: ResourceType<ApiClient> = {
  schema: KEY_BUDGET.schema,
  modifyPlan({ config, planned }) {
    return { planned: { ...planned, hard_block: config.hard_block ?? DEFAULTS.hardBlock } };
  },
  create: (client, planned) => put(client, planned, 'Creating'),
  read: (client, prior) => fetchState(client, prior),
  update: (client, planned) => put(client, planned, 'Updating'),
  delete: (client, prior) => goneIsFine(client.call('DELETE /api/llm/:id/keys/:credId/budget', { params: params(prior) }), action('Deleting')),
  async importState(_client, id) {
    const ids = splitImportId(id, '<llm proxy id>/<api key id>');
    return ids.value ? { value: { id, llm_proxy_id: ids.value[0], api_key_id: ids.value[1] }, diagnostics: [] } : { diagnostics: ids.diagnostics };
  },
};
