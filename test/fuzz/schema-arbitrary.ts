// Valid-ish values from a JSON Schema (the OpenAPI document's request bodies, which z.toJSONSchema derives from the
// contract's zod schemas). Only the keywords those documents use are read; anything else falls back to a small JSON
// value. Hints replace the generic generator for fields whose meaning matters (ids, URLs, Lua, patterns), so a fair
// share of the generated bodies is accepted and the fuzzer reaches the code behind validation.
import fc from 'fast-check';
import type { JsonSchema } from './routes.ts';

/** A generator for a property by name (and its schema), or undefined to use the schema. */
export type Hint = (property: string, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

const MAX_DEPTH = 8;

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = num(s.minLength) ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(s.maxLength) ?? 40, 40));
  if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern);
    return fc.stringMatching(re).filter((x) => x.length >= minLength && x.length <= (num(s.maxLength) ?? Infinity));
  }
  return fc.oneof(
    fc.string({ minLength, maxLength }),
    fc.string({ minLength, maxLength, unit: 'grapheme' }),
  );
}

function integerArb(s: JsonSchema): fc.Arbitrary<number> {
  const exclusive = num(s.exclusiveMinimum);
  const min = num(s.minimum) ?? (exclusive !== undefined ? exclusive + 1 : -1_000_000);
  const max = num(s.maximum) ?? 1_000_000;
  return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
}

function numberArb(s: JsonSchema): fc.Arbitrary<number> {
  const exclusive = num(s.exclusiveMinimum);
  const min = num(s.minimum) ?? exclusive ?? -1e6;
  const max = num(s.maximum) ?? 1e6;
  const d = fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).filter((x) => exclusive === undefined || x > exclusive);
  return fc.oneof(d, fc.integer({ min: Math.ceil(min), max: Math.floor(max) }).filter((x) => exclusive === undefined || x > exclusive));
}

function objectArb(s: JsonSchema, hint: Hint, depth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, ps] of Object.entries(props)) shape[k] = propertyArb(k, ps, hint, depth + 1);
  if (Object.keys(shape).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  return fc.record(shape, { requiredKeys: Object.keys(shape).filter((k) => required.has(k)) });
}

function propertyArb(name: string, s: JsonSchema, hint: Hint, depth: number): fc.Arbitrary<unknown> {
  const h = hint(name, s);
  const generic = valueFromSchema(s, hint, depth);
  return h ? fc.oneof({ arbitrary: h, weight: 4 }, { arbitrary: generic, weight: 1 }) : generic;
}

function typedArb(s: JsonSchema, hint: Hint, depth: number): fc.Arbitrary<unknown> {
  switch (s.type) {
    case 'object': return objectArb(s, hint, depth);
    case 'array': {
      const items = (s.items ?? {}) as JsonSchema;
      const minLength = num(s.minItems) ?? 0;
      const maxLength = Math.max(minLength, Math.min(num(s.maxItems) ?? 4, 4));
      return fc.array(valueFromSchema(items, hint, depth + 1), { minLength, maxLength });
    }
    case 'string': return stringArb(s);
    case 'integer': return integerArb(s);
    case 'number': return numberArb(s);
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    default: return fc.jsonValue({ maxDepth: 2 });
  }
}

export function valueFromSchema(s: JsonSchema, hint: Hint, depth = 0): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((a) => valueFromSchema({ ...a }, hint, depth + 1)));
  return typedArb(s, hint, depth);
}
