// tollgate_rule_set: the whole ordered firewall rule array of one proxy (GET/PUT /api/<kind>/:id/rules). The API
// replaces the array atomically, so the set is one resource; destroying it stores an empty array. id = proxy id.
import type { Rule } from '@tollgate/contract';
import type { ObjectValue, ResourceType } from '../framework/types.ts';
import type { ApiClient } from '@tollgate/contract';
import { goneIsFine } from './common.ts';
import { NOT_FOUND } from '@tollgate/contract';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';
import { ruleAttributes } from '../schema/rule-attributes.ts';
import { flatRule, planRules } from './rule-plan.ts';
import { objects } from './values.ts';

const action = (verb: string) => ({ action: `${verb} the rule set` });
const rulesPath = (kind: string, id: string) => `/api/${kind}/${id}/rules`;

/** The REST body: each rule with only its own fields (the state's nulls are other types' fields). */
function restRules(s: ObjectValue): Record<string, unknown>[] {
  return (objects(s, 'rules') ?? []).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)));
}

function state(kind: string, id: string, rules: readonly Rule[]): ObjectValue {
  return { id, proxy_kind: kind, proxy_id: id, rules: rules.map((r) => flatRule(r as unknown as Record<string, unknown>)) };
}

async function put(client: ApiClient, planned: ObjectValue, verb: string) {
  const kind = String(planned.proxy_kind);
  const id = String(planned.proxy_id);
  const r = await client.put<{ rules: Rule[] }>(rulesPath(kind, id), { rules: restRules(planned) });
  if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, action(verb))] };
  return { value: state(kind, id, r.body.rules), diagnostics: [] };
}

export const ruleSetResource: ResourceType<ApiClient> = {
  schema: {
    version: 0,
    description: 'The ordered firewall rules of one MCP server or LLM proxy. Rules run in list order; applying replaces the whole array.',
    attributes: {
      id: { type: 'string', computed: true, stable: true, description: 'The proxy id.' },
      proxy_kind: { type: 'string', required: true, forceNew: true, description: 'mcp or llm.' },
      proxy_id: { type: 'string', required: true, forceNew: true, description: 'Id of the MCP server or LLM proxy.' },
      rules: { required: true, description: 'The rules, in evaluation order. Set rule_type and that type\'s fields; the other fields stay unset.', nested: { nesting: 'list', attributes: ruleAttributes() } },
    },
  },
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
    const r = await client.get<{ rules: Rule[] }>(rulesPath(kind, id));
    if (r.ok) return { value: state(kind, id, r.body.rules), diagnostics: [] };
    if (r.error.status === NOT_FOUND) return { value: null, diagnostics: [] };
    return { diagnostics: [apiErrorDiagnostic(r.error, action('Reading'))] };
  },
  update: (client, planned) => put(client, planned, 'Updating'),
  delete: (client, prior) => goneIsFine(client.put(rulesPath(String(prior.proxy_kind), String(prior.proxy_id)), { rules: [] }), action('Deleting')),
  async importState(client, id) {
    // The id is the proxy's; which kind it is, the API says.
    for (const kind of ['mcp', 'llm']) {
      const r = await client.get(`/api/${kind}/${id}`);
      if (r.ok) return { value: { id, proxy_kind: kind, proxy_id: id }, diagnostics: [] };
      if (r.error.status !== NOT_FOUND) return { diagnostics: [apiErrorDiagnostic(r.error, action('Importing'))] };
    }
    return { diagnostics: [{ severity: 'error', summary: 'Cannot import the rule set', detail: `no MCP server or LLM proxy with id ${id}` }] };
  },
};

