// The default plan for a managed resource, before the resource's own modifyPlan. Terraform's rules: attributes the
// user sets are planned exactly as configured; computed attributes the user leaves null are unknown when the
// object is created (or replaced) and keep their prior value when they are `stable` or when nothing else changes;
// write-only attributes are never planned; a `forceNew` attribute that changes replaces the object.
import { UNKNOWN, type Attribute, type Diagnostic, type ObjectValue, type Path, type ResourceType, type Schema, type Value } from '../framework/types.ts';
import { deepEqual } from '../framework/values.ts';

export interface DefaultPlan {
  planned: ObjectValue;
  requiresReplace: Path[];
}

/** `proposed` is terraform's proposed new state: the config with prior values filled in for computed attributes. */
export interface PlanInput { prior: ObjectValue | null; config: ObjectValue; proposed: ObjectValue }

export function defaultPlan(schema: Schema, request: PlanInput): DefaultPlan {
  const { prior, config, proposed } = request;
  const requiresReplace = prior === null ? [] : replacedBy(schema.attributes, prior, proposed);
  const creating = prior === null || requiresReplace.length > 0;
  const changed = creating || !deepEqual(withoutWriteOnly(schema.attributes, proposed), withoutWriteOnly(schema.attributes, prior));
  const planned: ObjectValue = {};
  for (const [name, attribute] of Object.entries(schema.attributes)) {
    const context: AttributeValues = { configured: config[name] ?? null, proposed: proposed[name] ?? null, prior: prior?.[name] ?? null };
    planned[name] = planAttribute(attribute, context, { creating, changed });
  }
  return { planned, requiresReplace };
}

interface AttributeValues { configured: Value; proposed: Value; prior: Value }

function planAttribute(attribute: Attribute, values: AttributeValues, state: { creating: boolean; changed: boolean }): Value {
  if (attribute.writeOnly) return null;
  if (!attribute.computed || values.configured !== null) {
    // Nested attributes take terraform's merge, which keeps the prior values of computed attributes inside them.
    if (attribute.nested === undefined) return values.configured;
    return state.creating ? unknownComputed(attribute, values.proposed) : values.proposed;
  }
  if (state.creating) return UNKNOWN;
  return attribute.stable || !state.changed ? values.prior : UNKNOWN;
}

/** Inside a nested value being created: computed attributes the config leaves null become unknown. */
function unknownComputed(attribute: Attribute, value: Value): Value {
  const nested = attribute.nested;
  if (nested === undefined || value === null || value === UNKNOWN || typeof value !== 'object') return value;
  const objects: Value[] = nested.nesting === 'single' ? [value] : Array.isArray(value) ? value : Object.values(value);
  const planned = objects.map((object) => unknownComputedObject(nested.attributes, object));
  if (nested.nesting === 'single') return planned[0] ?? null;
  if (Array.isArray(value)) return planned;
  return Object.fromEntries(Object.keys(value).map((key, i) => [key, planned[i] ?? null]));
}

function unknownComputedObject(attributes: Record<string, Attribute>, object: Value): Value {
  if (object === null || object === UNKNOWN || typeof object !== 'object' || Array.isArray(object)) return object;
  const out: ObjectValue = {};
  for (const [name, attribute] of Object.entries(attributes)) {
    const item = object[name] ?? null;
    if (attribute.writeOnly) out[name] = null;
    else if (attribute.computed && item === null) out[name] = UNKNOWN;
    else out[name] = unknownComputed(attribute, item);
  }
  return out;
}

function replacedBy(attributes: Record<string, Attribute>, prior: ObjectValue, proposed: ObjectValue): Path[] {
  return Object.entries(attributes)
    .filter(([name, attribute]) => attribute.forceNew && !attribute.writeOnly && !deepEqual(proposed[name] ?? null, prior[name] ?? null))
    .map(([name]) => [name]);
}

function withoutWriteOnly(attributes: Record<string, Attribute>, value: ObjectValue): ObjectValue {
  const out: ObjectValue = {};
  for (const [name, attribute] of Object.entries(attributes)) if (!attribute.writeOnly) out[name] = value[name] ?? null;
  return out;
}

/** The default plan followed by the resource's own adjustment, with write-only attributes kept null. */
export function planWith(
  schema: Schema,
  modifyPlan: ResourceType<unknown>['modifyPlan'],
  request: PlanInput,
): DefaultPlan & { diagnostics: Diagnostic[] } {
  const base = defaultPlan(schema, request);
  if (modifyPlan === undefined) return { ...base, diagnostics: [] };
  const modified = modifyPlan({ prior: request.prior, config: request.config, planned: base.planned });
  const replace = [...base.requiresReplace];
  for (const path of modified.requiresReplace ?? []) if (!replace.some((p) => deepEqual(p, path))) replace.push(path);
  const planned: ObjectValue = { ...modified.planned };
  for (const [name, attribute] of Object.entries(schema.attributes)) if (attribute.writeOnly) planned[name] = null;
  return { planned, requiresReplace: replace, diagnostics: modified.diagnostics ?? [] };
}
