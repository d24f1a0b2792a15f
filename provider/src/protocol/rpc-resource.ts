// Managed-resource RPCs other than apply: state upgrade, refresh, plan and import. Each decodes with the resource's
// cty type, calls the resource (or the default planner), and encodes the answer.
import { callHook, client, resourceType, type ProviderContext } from './context.ts';
import { decodeObject, encodeDynamicValue, fromJson } from './cty.ts';
import { hasErrors, toWireDiagnostics, toWirePath } from './diagnostics.ts';
import { planWith } from './plan.ts';
import { finalState } from './state.ts';
import { objectType } from './types-of.ts';
import type { ImportRequest, PlanRequestWire, ReadRequest, UpgradeRequest } from './wire.ts';

const noBytes = Buffer.alloc(0);

/** The stored JSON read with the current schema: missing attributes become null, unknown ones are dropped. */
export function upgradeResourceState<Client>(context: ProviderContext<Client>) {
  return (request: UpgradeRequest) => {
    const resource = resourceType(context, request.type_name);
    const type = objectType(resource.schema.attributes);
    const json = request.raw_state?.json;
    if (json === undefined || json.length === 0) return { upgraded_state: encodeDynamicValue(null, type), diagnostics: [] };
    const stored = fromJson(JSON.parse(Buffer.from(json).toString('utf8')), type);
    const { state, diagnostics } = finalState(resource.schema, stored !== null && typeof stored === 'object' && !Array.isArray(stored) ? stored : {}, request.type_name);
    return { upgraded_state: encodeDynamicValue(state, type), diagnostics: toWireDiagnostics(diagnostics, type) };
  };
}

export function readResource<Client>(context: ProviderContext<Client>) {
  return async (request: ReadRequest) => {
    const resource = resourceType(context, request.type_name);
    const type = objectType(resource.schema.attributes);
    const current = decodeObject(request.current_state, type);
    const unchanged = { new_state: request.current_state ?? encodeDynamicValue(null, type), private: request.private };
    if (current === null) return { ...unchanged, diagnostics: [] };
    const result = await callHook(`Reading ${request.type_name} failed`, () => resource.read(client(context), current));
    if (hasErrors(result.diagnostics)) return { ...unchanged, diagnostics: toWireDiagnostics(result.diagnostics, type) };
    if (result.value === null || result.value === undefined) {
      return { new_state: encodeDynamicValue(null, type), private: request.private, diagnostics: toWireDiagnostics(result.diagnostics, type) };
    }
    const { state, diagnostics } = finalState(resource.schema, result.value, request.type_name);
    return { new_state: encodeDynamicValue(state, type), private: request.private, diagnostics: toWireDiagnostics([...result.diagnostics, ...diagnostics], type) };
  };
}

export function planResourceChange<Client>(context: ProviderContext<Client>) {
  return (request: PlanRequestWire) => {
    const resource = resourceType(context, request.type_name);
    const type = objectType(resource.schema.attributes);
    const prior = decodeObject(request.prior_state, type);
    const proposed = decodeObject(request.proposed_new_state, type);
    const planned_private = request.prior_private;
    if (proposed === null) return { planned_state: encodeDynamicValue(null, type), requires_replace: [], planned_private, diagnostics: [] };
    const config = decodeObject(request.config, type) ?? proposed;
    const plan = planWith(resource.schema, resource.modifyPlan?.bind(resource), { prior, config, proposed });
    return {
      planned_state: encodeDynamicValue(plan.planned, type),
      requires_replace: plan.requiresReplace.map((path) => toWirePath(path, type)),
      planned_private,
      diagnostics: toWireDiagnostics(plan.diagnostics, type),
    };
  };
}

export function importResourceState<Client>(context: ProviderContext<Client>) {
  return async (request: ImportRequest) => {
    const resource = resourceType(context, request.type_name);
    const type = objectType(resource.schema.attributes);
    const result = await callHook(`Importing ${request.type_name} failed`, () => resource.importState(client(context), request.id));
    if (hasErrors(result.diagnostics) || result.value === undefined) {
      return { imported_resources: [], diagnostics: toWireDiagnostics(result.diagnostics, type) };
    }
    const { state, diagnostics } = finalState(resource.schema, result.value, request.type_name);
    return {
      imported_resources: [{ type_name: request.type_name, state: encodeDynamicValue(state, type), private: noBytes }],
      diagnostics: toWireDiagnostics([...result.diagnostics, ...diagnostics], type),
    };
  };
}
