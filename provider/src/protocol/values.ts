// Small pure operations on framework values used by planning and apply.
import { UNKNOWN, type Attribute, type ObjectValue, type Path, type Value } from '../framework/types.ts';

/** The object with every schema attribute present (null when absent) and write-only attributes null. */
export function completeObject(attributes: Record<string, Attribute>, value: ObjectValue): ObjectValue {
  const out: ObjectValue = {};
  for (const [name, attribute] of Object.entries(attributes)) {
    out[name] = attribute.writeOnly ? null : (value[name] ?? null);
  }
  return out;
}

/** Replaces every unknown by null and names where they were (an applied object must be wholly known). */
export function nullUnknowns(value: Value, path: Path = [], found: Path[] = []): { value: Value; unknownPaths: Path[] } {
  if (value === UNKNOWN) {
    found.push(path);
    return { value: null, unknownPaths: found };
  }
  if (Array.isArray(value)) {
    return { value: value.map((item, i) => nullUnknowns(item, [...path, i], found).value), unknownPaths: found };
  }
  if (value !== null && typeof value === 'object') {
    const out: ObjectValue = {};
    for (const [key, item] of Object.entries(value)) out[key] = nullUnknowns(item, [...path, key], found).value;
    return { value: out, unknownPaths: found };
  }
  return { value, unknownPaths: found };
}

export function formatPath(path: Path): string {
  return path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('');
}
