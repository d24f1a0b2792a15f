// RuleSet → the rule array of a proxy (PUT /api/{mcp|llm}/:id/rules). Every RuleSet of one proxy contributes; the
// array is their rules concatenated by (order, metadata.name). While any of them is invalid the stored array is left
// as it is (the last good one), so a typo can never silently drop the other sets' rules.
import { checkRules, type ProxyKind, type RouteKey, type Rule } from '@tollgate/contract';
import { ruleSetSpecSchema, type RuleSetSpec } from '../kinds/specs.ts';
import type { KubeObject } from '../kube/objects.ts';
import { sameValue } from './compare.ts';
import { invalid, ok, waiting, type Outcome } from './outcome.ts';
import { apiFailure } from './remote.ts';
import type { ObjectIndex, ReconcileContext, Reconciler } from './types.ts';

const PROXY_KIND = { McpProxy: 'mcp', LlmProxy: 'llm' } as const satisfies Record<RuleSetSpec['targetRef']['kind'], ProxyKind>;

/** The rules routes of each proxy kind: both take and answer `{ rules }`, so one code path serves the two. */
const RULES_ROUTES = {
  mcp: { read: 'GET /api/mcp/:id/rules', write: 'PUT /api/mcp/:id/rules' },
  llm: { read: 'GET /api/llm/:id/rules', write: 'PUT /api/llm/:id/rules' },
} as const satisfies Record<ProxyKind, { read: RouteKey; write: RouteKey }>;

type RuleSetObject = KubeObject<RuleSetSpec>;

/** The RuleSets of one target in the order their rules are concatenated. */
export function rulesetsOf(objects: ObjectIndex, namespace: string, target: RuleSetSpec['targetRef']): RuleSetObject[] {
  return (objects.list('RuleSet', namespace) as RuleSetObject[])
    .filter((o) => o.spec?.targetRef?.kind === target.kind && o.spec.targetRef.name === target.name && !o.metadata.deletionTimestamp)
    .sort((a, b) => (a.spec.order ?? 0) - (b.spec.order ?? 0) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}

interface Combined { rules: Rule[]; offsets: Array<{ name: string; start: number; count: number }> }

/** The whole array, or the first set whose rules the contract refuses. */
export function combine(sets: RuleSetObject[], kind: ProxyKind): { ok: true; value: Combined } | { ok: false; name: string; message: string } {
  const rules: Rule[] = [];
  const offsets: Combined['offsets'] = [];
  for (const s of sets) {
    const checked = checkRules(kind, s.spec.rules ?? []);
    if (!checked.ok) return { ok: false, name: s.metadata.name, message: checked.message };
    offsets.push({ name: s.metadata.name, start: rules.length, count: checked.value.length });
    rules.push(...checked.value);
  }
  // Names of rate limits must be unique across the whole array, not only within one set.
  const all = checkRules(kind, rules);
  if (!all.ok) return { ok: false, name: locate(all.message, offsets).name, message: locate(all.message, offsets).message };
  return { ok: true, value: { rules: all.value, offsets } };
}

/** Translates `rules[7]…` of the combined array into the RuleSet and index the user wrote. */
function locate(message: string, offsets: Combined['offsets']): { name: string; message: string } {
  const m = /rules\[(\d+)\]/.exec(message);
  const i = m ? Number(m[1]) : -1;
  const o = offsets.find((x) => i >= x.start && i < x.start + x.count);
  if (!o) return { name: offsets[0]?.name ?? '', message };
  return { name: o.name, message: message.replace(/rules\[(\d+)\]/g, (_, n: string) => `rules[${Number(n) - o.start}]`).replace(/rule index (\d+)/g, (_, n: string) => `rule index ${Number(n) - o.start}`) };
}

/** Stores the array unless it is already stored; 'gone' when the proxy does not exist remotely. */
async function putRules(ctx: ReconcileContext, proxy: { kind: ProxyKind; id: string }, combined: Combined, self: string): Promise<Outcome | 'gone' | undefined> {
  const { kind, id } = proxy;
  const routes = RULES_ROUTES[kind];
  const current = await ctx.api.call(routes.read, { params: { id } });
  if (!current.ok) return current.error.status === 404 ? 'gone' : apiFailure(current.error, 'Reading the rules');
  if (sameValue(current.body.rules, combined.rules)) return undefined;
  const r = await ctx.api.call(routes.write, { params: { id }, body: { rules: combined.rules } });
  if (r.ok) return undefined;
  const where = locate(r.error.message, combined.offsets);
  const failure = apiFailure({ ...r.error, message: where.message }, `Storing the rules${where.name && where.name !== self ? ` (RuleSet ${where.name})` : ''}`);
  return failure;
}

export const ruleSetReconciler: Reconciler<typeof ruleSetSpecSchema> = {
  kind: 'RuleSet',
  spec: ruleSetSpecSchema,

  async reconcile(ctx, obj) {
    const ns = obj.metadata.namespace!;
    const { targetRef } = obj.spec;
    const fields = { ruleCount: obj.spec.rules.length };
    const target = ctx.objects.get(targetRef.kind, ns, targetRef.name);
    if (!target) return waiting('TargetMissing', `${targetRef.kind} ${targetRef.name} does not exist`, fields, 10_000);
    const id = target.status?.id;
    if (typeof id !== 'string' || !id) return waiting('TargetNotReady', `${targetRef.kind} ${targetRef.name} has no remote id yet`, fields);
    const kind = PROXY_KIND[targetRef.kind];
    const combined = combine(rulesetsOf(ctx.objects, ns, targetRef), kind);
    if (!combined.ok) {
      return combined.name === obj.metadata.name
        ? invalid('InvalidRules', combined.message, { ...fields, proxyId: id })
        : waiting('SiblingInvalid', `RuleSet ${combined.name} for the same ${targetRef.kind} is invalid (${combined.message}); the stored rules are kept until it is fixed`, { ...fields, proxyId: id }, 30_000);
    }
    const failure = await putRules(ctx, { kind, id }, combined.value, obj.metadata.name);
    if (failure === 'gone') return waiting('TargetNotReady', `${targetRef.kind} ${targetRef.name} does not exist remotely (yet)`, fields);
    if (failure) return { ...failure, fields: { ...fields, proxyId: id } };
    return ok({ ...fields, proxyId: id }, `${fields.ruleCount} rules stored on ${targetRef.kind} ${targetRef.name}`);
  },

  async cleanup(ctx, obj) {
    // Orphan: the stored array keeps this set's rules (the other sets' reconciles store them again only on a change).
    if (obj.spec.deletionPolicy === 'Orphan') return undefined;
    const ns = obj.metadata.namespace!;
    const { targetRef } = obj.spec;
    const target = ctx.objects.get(targetRef.kind, ns, targetRef.name);
    const id = target?.status?.id;
    // The proxy is gone or going: its rules go with it.
    if (!target || target.metadata.deletionTimestamp || typeof id !== 'string' || !id) return undefined;
    const kind = PROXY_KIND[targetRef.kind];
    const rest = rulesetsOf(ctx.objects, ns, targetRef).filter((o) => o.metadata.name !== obj.metadata.name);
    const combined = combine(rest, kind);
    if (!combined.ok) return waiting('SiblingInvalid', `RuleSet ${combined.name} is invalid (${combined.message}); the rules are kept until it is fixed`);
    const failure = await putRules(ctx, { kind, id }, combined.value, obj.metadata.name);
    return failure === 'gone' ? undefined : failure;
  },

  dependents: (obj, objects) => {
    // Siblings of the same target see the new concatenation (and their status follows).
    const spec = obj.spec as RuleSetSpec;
    if (!spec?.targetRef) return [];
    return rulesetsOf(objects, obj.metadata.namespace!, spec.targetRef)
      .filter((o) => o.metadata.name !== obj.metadata.name)
      .map((o) => ({ kind: 'RuleSet' as const, namespace: o.metadata.namespace!, name: o.metadata.name }));
  },
};
