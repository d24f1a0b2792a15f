// tollgate_llm_key_budget: the per-key cap on one LLM proxy (PUT/DELETE /api/llm/:id/keys/:credId/budget, read from
// GET /api/llm/:id/keys). Import id and id: <proxy id>/<key id>.
import type { z } from 'zod';
import type { keyBudgetEntrySchema } from '@tollgate/contract';
import type { ObjectValue, ResourceType } from '../framework/types.ts';
import type { ApiClient } from '@tollgate/contract';
import { goneIsFine, splitImportId } from './common.ts';
import { apiErrorDiagnostic, errorDiagnostic } from '../client/diagnostics.ts';
import { budgetAttribute } from './llm-proxy.ts';
import { DEFAULTS } from './defaults.ts';
import { bool, num, str } from './values.ts';

type KeyBudgetEntry = z.output<typeof keyBudgetEntrySchema>;
const action = (verb: string) => ({ action: `${verb} the per-key budget` });
const budgetPath = (s: ObjectValue) => `/api/llm/${String(s.llm_proxy_id)}/keys/${String(s.api_key_id)}/budget`;
const fields = budgetAttribute.nested!.attributes;

async function fetchState(client: ApiClient, s: ObjectValue) {
  const r = await client.get<{ keys: KeyBudgetEntry[] }>(`/api/llm/${String(s.llm_proxy_id)}/keys`);
  if (!r.ok) return r.error.status === 404 ? { value: null, diagnostics: [] } : { diagnostics: [apiErrorDiagnostic(r.error, action('Reading'))] };
  const b = r.body.keys.find((k) => k.credentialId === s.api_key_id)?.budget;
  if (!b) return { value: null, diagnostics: [] };
  const value: ObjectValue = {
    id: `${String(s.llm_proxy_id)}/${String(s.api_key_id)}`, llm_proxy_id: s.llm_proxy_id ?? null, api_key_id: s.api_key_id ?? null,
    period: b.period, cap_usd: b.capUsd, hard_block: b.hardBlock,
  };
  return { value, diagnostics: [] };
}

async function put(client: ApiClient, planned: ObjectValue, verb: string) {
  const r = await client.put(budgetPath(planned), { period: str(planned, 'period'), capUsd: num(planned, 'cap_usd'), hardBlock: bool(planned, 'hard_block') ?? DEFAULTS.hardBlock });
  if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action(verb))] };
  const s = await fetchState(client, planned);
  return s.value ? { value: s.value, diagnostics: s.diagnostics } : { diagnostics: [...s.diagnostics, errorDiagnostic(`${verb} the per-key budget failed`, 'the budget was saved but is not listed by GET /api/llm/:id/keys')] };
}

export const llmKeyBudgetResource: ResourceType<ApiClient> = {
  schema: {
    version: 0,
    description: 'A per-key USD budget on one LLM proxy. When the proxy also has a cap, the stricter one wins.',
    attributes: {
      id: { type: 'string', computed: true, stable: true, description: '<llm proxy id>/<api key id>.' },
      llm_proxy_id: { type: 'string', required: true, forceNew: true, description: 'The LLM proxy.' },
      api_key_id: { type: 'string', required: true, forceNew: true, description: 'The client API key (it must be granted models on the proxy).' },
      period: fields.period!,
      cap_usd: fields.cap_usd!,
      hard_block: fields.hard_block!,
    },
  },
  modifyPlan({ config, planned }) {
    return { planned: { ...planned, hard_block: config.hard_block ?? DEFAULTS.hardBlock } };
  },
  create: (client, planned) => put(client, planned, 'Creating'),
  read: (client, prior) => fetchState(client, prior),
  update: (client, planned) => put(client, planned, 'Updating'),
  delete: (client, prior) => goneIsFine(client.delete(budgetPath(prior)), action('Deleting')),
  async importState(_client, id) {
    const ids = splitImportId(id, '<llm proxy id>/<api key id>');
    return ids.value ? { value: { id, llm_proxy_id: ids.value[0], api_key_id: ids.value[1] }, diagnostics: [] } : { diagnostics: ids.diagnostics };
  },
};
