// Value operations both layers need: the protocol to plan, the resources to tell drift from a reordering.
import type { Value } from './types.ts';

/** Deep equality of decoded values: lists in order, objects by key with a missing key equal to null. */
export function deepEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && arraysEqual(a, b);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => deepEqual(a[key] ?? null, b[key] ?? null));
}

function arraysEqual(a: Value[], b: Value[]): boolean {
  return a.length === b.length && a.every((item, i) => deepEqual(item, b[i] ?? null));
}
