// tollgate_rule_set: the whole ordered firewall rule array of one proxy (GET/PUT /api/<kind>/:id/rules). The API
// replaces the array atomically, so the set is one resource; destroying it stores an empty array. id = proxy id.
import { NOT_FOUND, issueMessage, rulesPutSchema, type ApiClient, type ApiResult, type ResponseOf, type Rule } from '@tollgate/contract';
import type { ObjectValue, ResourceType } from '../framework/types.ts';
import { goneIsFine } from './common.ts';
import { apiErrorDiagnostic, errorDiagnostic } from '../client/diagnostics.ts';
import { deriveResource } from '../schema/from-contract.ts';
import { ruleAttributes } from '../schema/rule-attributes.ts';
import { flatRule, planRules } from './rule-plan.ts';
import { objects } from './values.ts';

export const RULE_SET = deriveResource({
  description: 'The ordered firewall rules of one MCP server or LLM proxy. Rules run in list order; applying replaces the whole array.',
  body: rulesPutSchema,
  before: {
    id: { type: 'string', computed: true, stable: true, description: 'The proxy id.' },
    proxy_kind: { type: 'string', required: true, forceNew: true, description: 'mcp or llm.' },
    proxy_id: { type: 'string', required: true, forceNew: true, description: 'Id of the MCP server or LLM proxy.' },
  },
  // The rules are one flat object per rule (every field of every rule type), derived from the rule schemas.
  facts: { rules: { attributes: ruleAttributes(), note: 'Set rule_type and that type\'s fields; the other fields stay unset.' } },
});

const action = (verb: string) => ({ action: `${verb} the rule set` });
type Rules = ApiResult<ResponseOf<'GET /api/mcp/:id/rules'>>;

/** The two kinds have the same rule routes; the kind picks the pair. */
function getRules(client: ApiClient, kind: string, id: string): Promise<Rules> {
  return kind === 'llm' ? client.call('GET /api/llm/:id/rules', { params: { id } }) : client.call('GET /api/mcp/:id/rules', { params: { id } });
}

function putRules(client: ApiClient, kind: string, id: string, rules: Rule[]): Promise<Rules> {
  return kind === 'llm'
    ? client.call('PUT /api/llm/:id/rules', { params: { id }, body: { rules } })
    : client.call('PUT /api/mcp/:id/rules', { params: { id }, body: { rules } });
}

/** The REST body: each rule with only its own fields (the state's nulls are other types' fields). */
function restRules(s: ObjectValue): { rules: Rule[] } | { message: string } {
  const rules = (objects(s, 'rules') ?? []).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)));
  // The plan checked each rule already (rule-plan.ts); parsing again types the body with the contract's own schema.
  const parsed = rulesPutSchema.safeParse({ rules });
  return parsed.success ? { rules: parsed.data.rules } : { message: issueMessage(parsed.error.issues) };
}

function state(kind: string, id: string, rules: readonly Rule[]): ObjectValue {
  return { id, proxy_kind: kind, proxy_id: id, rules: rules.map((r) => flatRule(r as unknown as Record<string, unknown>)) };
}

async function put(client: ApiClient, planned: ObjectValue, verb: string) {
  const kind = String(planned.proxy_kind);
  const id = String(planned.proxy_id);
  const body = restRules(planned);
  if ('message' in body) return { diagnostics: [errorDiagnostic(`${verb} the rule set failed`, body.message, ['rules'])] };
  const r = await putRules(client, kind, id, body.rules);
  if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action(verb))] };
  return { value: state(kind, id, r.body.rules), diagnostics: [] };
}

export const ruleSetResource: ResourceType<ApiClient> = {
  schema: RULE_SET.schema,
  validate(config) {
    const kind = config.proxy_kind;
    const diagnostics = planRules(kind, objects(config, 'rules') ?? []).diagnostics;
    if (typeof kind === 'string' && kind !== 'mcp' && kind !== 'llm') {
      diagnostics.unshift({ severity: 'error', summary: 'Invalid proxy kind', detail: 'proxy_kind: must be mcp or llm', path: ['proxy_kind'] });
    }
    return diagnostics;
  },
  modifyPlan({ config, planned }) {
    const p = planRules(config.proxy_kind, objects(config, 'rules') ?? []);
    return { planned: { ...planned, rules: p.rules }, diagnostics: p.diagnostics };
  },
  create: (client, planned) => put(client, planned, 'Creating'),
  async read(client, prior) {
    const kind = String(prior.proxy_kind);
    const id = String(prior.proxy_id ?? prior.id);
    const r = await getRules(client, kind, id);
    if (r.ok) return { value: state(kind, id, r.body.rules), diagnostics: [] };
    if (r.error.status === NOT_FOUND) return { value: null, diagnostics: [] };
    return { diagnostics: [apiErrorDiagnostic(r.error, action('Reading'))] };
  },
  update: (client, planned) => put(client, planned, 'Updating'),
  delete: (client, prior) => goneIsFine(putRules(client, String(prior.proxy_kind), String(prior.proxy_id), []), action('Deleting')),
  async importState(client, id) {
    // The id is the proxy's; which kind it is, the API says.
    for (const kind of ['mcp', 'llm'] as const) {
      const r = kind === 'mcp' ? await client.call('GET /api/mcp/:id', { params: { id } }) : await client.call('GET /api/llm/:id', { params: { id } });
      if (r.ok) return { value: { id, proxy_kind: kind, proxy_id: id }, diagnostics: [] };
      if (r.error.status !== NOT_FOUND) return { diagnostics: [apiErrorDiagnostic(r.error, action('Importing'))] };
    }
    return { diagnostics: [{ severity: 'error', summary: 'Cannot import the rule set', detail: `no MCP server or LLM proxy with id ${id}` }] };
  },
};

