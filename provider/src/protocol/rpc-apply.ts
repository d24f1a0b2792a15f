// ApplyResourceChange: create when there is no prior object, delete when the plan is null, update otherwise. The
// answer always carries a state: on failure the prior object is kept (or nothing, for a failed create) so that
// terraform's record matches what exists.
import type { Diagnostic, ObjectValue, ResourceType, Result } from '../framework/types.ts';
import { callHook, client, resourceType, type ProviderContext } from './context.ts';
import { decodeObject, encodeDynamicValue } from './cty.ts';
import { hasErrors, toWireDiagnostics } from './diagnostics.ts';
import { finalState } from './state.ts';
import { objectType } from './types-of.ts';
import type { ApplyRequest } from './wire.ts';

interface Change { prior: ObjectValue | null; planned: ObjectValue | null; config: ObjectValue }

export function applyResourceChange<Client>(context: ProviderContext<Client>) {
  return async (request: ApplyRequest) => {
    const resource = resourceType(context, request.type_name);
    const type = objectType(resource.schema.attributes);
    const change: Change = {
      prior: decodeObject(request.prior_state, type),
      planned: decodeObject(request.planned_state, type),
      config: decodeObject(request.config, type) ?? {},
    };
    const outcome = await apply(resource, client(context), change, request.type_name);
    const diagnostics: Diagnostic[] = [...outcome.diagnostics];
    let newState: ObjectValue | null = null;
    if (outcome.value !== null) {
      const final = finalState(resource.schema, outcome.value, request.type_name);
      newState = final.state;
      diagnostics.push(...final.diagnostics);
    }
    return { new_state: encodeDynamicValue(newState, type), private: request.planned_private, diagnostics: toWireDiagnostics(diagnostics, type) };
  };
}

async function apply<Client>(resource: ResourceType<Client>, api: Client, change: Change, typeName: string): Promise<{ value: ObjectValue | null; diagnostics: Diagnostic[] }> {
  const { prior, planned, config } = change;
  if (planned === null) {
    if (prior === null) return { value: null, diagnostics: [] };
    const result: Result<void> = await callHook(`Deleting ${typeName} failed`, () => resource.delete(api, prior));
    return { value: hasErrors(result.diagnostics) ? prior : null, diagnostics: result.diagnostics };
  }
  if (prior === null) {
    const result = await callHook(`Creating ${typeName} failed`, () => resource.create(api, planned, config));
    return { value: result.value ?? null, diagnostics: result.diagnostics };
  }
  const result = await callHook(`Updating ${typeName} failed`, () => resource.update(api, planned, prior, config));
  return { value: result.value ?? prior, diagnostics: result.diagnostics };
}
