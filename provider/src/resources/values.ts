// Typed reads of decoded Terraform values. A resource's hooks only run with known values (terraform resolves
// unknowns before apply), but plan-time hooks may see UNKNOWN, so each reader says what it does with one.
import { UNKNOWN, type ObjectValue, type Value } from '../framework/types.ts';

export function isKnown(v: Value | undefined): boolean {
  if (v === UNKNOWN) return false;
  if (Array.isArray(v)) return v.every(isKnown);
  if (v && typeof v === 'object') return Object.values(v).every(isKnown);
  return true;
}

/** `v ?? fallback` without widening UNKNOWN's type. */
export function orElse(v: Value | undefined, fallback: Value): Value {
  return v === undefined || v === null ? fallback : v;
}

export function str(o: ObjectValue, k: string): string | null {
  const v = o[k];
  return typeof v === 'string' ? v : null;
}

export function num(o: ObjectValue, k: string): number | null {
  const v = o[k];
  return typeof v === 'number' ? v : null;
}

export function bool(o: ObjectValue, k: string): boolean | null {
  const v = o[k];
  return typeof v === 'boolean' ? v : null;
}

export function strings(o: ObjectValue, k: string): string[] | null {
  const v = o[k];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null;
}

export function obj(o: ObjectValue, k: string): ObjectValue | null {
  const v = o[k];
  return isObject(v) ? v : null;
}

export function objects(o: ObjectValue, k: string): ObjectValue[] | null {
  const v = o[k];
  return Array.isArray(v) ? v.filter((x): x is ObjectValue => !!x && typeof x === 'object' && !Array.isArray(x)) : null;
}

function isObject(v: Value | undefined): v is ObjectValue {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
