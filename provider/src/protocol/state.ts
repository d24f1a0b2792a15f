// The last step before a state goes back to terraform: every attribute present, write-only attributes null, and no
// unknown values (an unknown after apply or read is a resource bug: it is cleared and reported at its path).
import type { Diagnostic, ObjectValue, Schema } from '../framework/types.ts';
import { completeObject, formatPath, nullUnknowns } from './values.ts';

export function finalState(schema: Schema, value: ObjectValue, typeName: string): { state: ObjectValue; diagnostics: Diagnostic[] } {
  const { value: known, unknownPaths } = nullUnknowns(completeObject(schema.attributes, value));
  const diagnostics: Diagnostic[] = unknownPaths.map((path) => ({
    severity: 'error',
    summary: 'Provider returned an unknown value',
    detail: `${typeName} left ${formatPath(path)} unknown after the operation; it was stored as null. This is a bug in the provider.`,
    path,
  }));
  // nullUnknowns keeps the shape: an object stays an object.
  return { state: isObject(known) ? known : {}, diagnostics };
}

function isObject(value: unknown): value is ObjectValue {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
