// Kubernetes structural schemas (a CRD's openAPIV3Schema) from the same zod schemas the API validates with: what the
// CRDs under crds/ are built on (crds.ts). zod gives JSON Schema 2020-12; Kubernetes accepts a
// subset of OpenAPI v3.0 with extra rules. Every node has a `type`; no `anyOf`/`oneOf` decides a property's type
// (a nullable zod field, `anyOf [T, null]`, becomes T with `nullable: true`); `const` is a one-value `enum`;
// `exclusiveMinimum` is a boolean beside `minimum`; `additionalProperties: false` is not allowed (the API server
// prunes unknown fields instead); lists are atomic (a rule's `tools` is replaced whole, never merged).
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

export class NotStructural extends Error {
  constructor(path: string, reason: string) {
    super(`${path || '(root)'}: ${reason}`);
  }
}

/** The structural schema of a zod schema, as a CRD's openAPIV3Schema (or one of its properties) takes it. */
export function structuralSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' }) as JsonSchema;
  delete json.$schema;
  return convert(json, '');
}

function isNullType(s: unknown): boolean {
  return typeof s === 'object' && s !== null && (s as JsonSchema).type === 'null';
}

function convert(node: JsonSchema, path: string): JsonSchema {
  const s = withOpenApi30Keywords(withoutNullUnion({ ...node }, path));
  if (typeof s.type !== 'string') throw new NotStructural(path, `every node needs one type (got ${JSON.stringify(s.type)})`);
  if (s.type === 'object' && s.properties) {
    const props = s.properties as Record<string, JsonSchema>;
    s.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, convert(v, path ? `${path}.${k}` : k)]));
  }
  if (s.type === 'array' && s.items) {
    s.items = convert(s.items as JsonSchema, `${path}[]`);
    s['x-kubernetes-list-type'] = 'atomic';
  }
  return s;
}

/** `anyOf [T, null]` (a nullable zod field) becomes T with `nullable: true`; any other union has no structural form. */
function withoutNullUnion(s: JsonSchema, path: string): JsonSchema {
  const union = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (!union) return s;
  const rest = union.filter((u) => !isNullType(u));
  if (rest.length !== 1) throw new NotStructural(path, 'a union of several types has no structural form (flatten it, with a CEL rule, where the CRD uses it)');
  const { anyOf: _a, oneOf: _o, ...outer } = s;
  return rest.length < union.length ? { ...outer, ...rest[0], nullable: true } : { ...outer, ...rest[0] };
}

/** JSON Schema 2020-12 keywords in their OpenAPI 3.0 form, which is what a CRD takes. */
function withOpenApi30Keywords(s: JsonSchema): JsonSchema {
  if (s.default === null) delete s.default; // absent is null; a null default needs no writing
  if ('const' in s) {
    s.enum = [s.const];
    delete s.const;
  }
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof s[exclusive] === 'number') {
      s[bound] = s[exclusive];
      s[exclusive] = true;
    }
  }
  if (s.additionalProperties === false) delete s.additionalProperties;
  return s;
}
