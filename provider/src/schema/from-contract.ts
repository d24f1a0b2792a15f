// A resource's attributes derived from the contract: the arguments are the fields of the request body (type,
// required or optional, default, description), the computed attributes name a field of the answer, and a small
// table per resource adds what only Terraform knows (replacement, secrets kept out of the state, stable computed
// values, attributes of the provider's own such as path parameters). The same derivation turns planned values into
// the body and an answer into the state, so a field added to the contract reaches the schema, the reference pages,
// the CDKTF bindings, the request and the state by regeneration (docs/terraform.md).
import type { z } from 'zod';
import type { Attribute, CtyType, ObjectValue, Value } from '../framework/types.ts';
import { snake } from '../client/diagnostics.ts';
import { describeOf } from './describe.ts';

/** Terraform-only facts about an argument derived from a body field, keyed by attribute name. */
export interface FieldFacts {
  /** The body field, when the attribute is not the field's snake_case (terraform reserves `provider`). */
  field?: string;
  /** The API cannot change it in place: a change replaces the object. */
  forceNew?: boolean;
  /**
   * A secret the API never returns: `<name>` (sensitive, in the state), `<name>_wo` (write-only) and
   * `<name>_wo_version`. The caller decides when to send it (writeOnlySecret); the state keeps what terraform sent.
   */
  secret?: boolean;
  /** A Terraform remark appended to the contract's description. */
  note?: string;
  /** Facts of a nested object's attributes. */
  nested?: Record<string, FieldFacts>;
  /** Nested attributes that do not come from the field's schema (the rule set's flat rule form). */
  attributes?: Record<string, Attribute>;
}

/** A computed attribute read from a field of the answer. */
export interface RecordFact {
  from: string;
  /** Kept from the prior state by plans that change other attributes (UseStateForUnknown). */
  stable?: boolean;
  sensitive?: boolean;
  /** The Terraform type when the state holds a projection of the field (tool objects → their names). */
  type?: CtyType;
  /** Replaces the contract's description (the contract has none, or it speaks of another surface). */
  description?: string;
  note?: string;
  /** Another answer holding the field (the plaintext key is only in the create answer). */
  record?: z.ZodObject;
}

/** An attribute of the provider's own (a path parameter, a switch of the provider), written out in full. */
export type Extra = Attribute | RecordFact;

export interface ResourceFacts<B extends z.ZodObject> {
  description: string;
  body: B;
  /** The answer computed attributes are read from (none when every attribute is an argument or the provider's own). */
  record?: z.ZodObject;
  /** Attributes before the body's, in order: the id, path parameters. */
  before?: Record<string, Extra>;
  facts?: Record<string, FieldFacts>;
  /** Attributes after the body's, in order: provider switches, values only the answer has. */
  after?: Record<string, Extra>;
}

/** Where an attribute's value sits in a body or an answer. */
interface Mapping {
  field: string;
  schema: z.ZodType;
  secret?: boolean;
  /** Only in the answer. */
  computed?: boolean;
  nested?: Record<string, Mapping>;
}

export interface DerivedResource<B extends z.ZodObject> {
  schema: { version: number; description: string; attributes: Record<string, Attribute> };
  /** Body field name → attribute name where they differ, for error diagnostics (provider → llm_provider). */
  renames: Record<string, string>;
  /** Attribute name → body field of every argument the state reads back from the answer (secrets are not). */
  readBack: Record<string, string>;
  /** The request body from planned values: every argument but the secrets, nulls sent only where the field takes null. */
  body(values: ObjectValue): z.input<B>;
  /** The state from an answer: arguments and computed attributes, secrets as terraform last sent them. */
  state(record: Record<string, unknown>, prior: ObjectValue): ObjectValue;
}

interface Unwrapped { inner: z.ZodType; optional: boolean; hasDefault: boolean; defaultValue?: unknown }

interface Def { type: string; innerType?: z.ZodType; defaultValue?: unknown; in?: z.ZodType; element?: z.ZodType; entries?: Record<string, string>; values?: unknown[]; valueType?: z.ZodType }

const defOf = (s: z.ZodType) => (s as unknown as { def: Def }).def;

function unwrap(schema: z.ZodType): Unwrapped {
  const out: Unwrapped = { inner: schema, optional: false, hasDefault: false };
  for (;;) {
    const def = defOf(out.inner);
    // A nullable field takes null in the body (toBody asks the schema itself); for the attribute it is optional only
    // when the body may leave it out.
    if (def.type === 'optional') out.optional = true;
    else if (def.type === 'default' || def.type === 'prefault') {
      if (!out.hasDefault) out.defaultValue = def.defaultValue;
      out.hasDefault = true;
    } else if (!['nullable', 'readonly', 'catch', 'pipe'].includes(def.type)) return out;
    out.inner = (def.type === 'pipe' ? def.in : def.innerType)!;
  }
}

function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  return defOf(schema).type === 'object' ? (schema as z.ZodObject).shape : undefined;
}

function enumValues(inner: z.ZodType): string[] | undefined {
  const def = defOf(inner);
  if (def.type === 'enum') return Object.values(def.entries ?? {});
  return undefined;
}

/** zod types (and a literal's JavaScript type) that are one Terraform primitive. */
const SCALARS: Record<string, CtyType> = { string: 'string', enum: 'string', number: 'number', int: 'number', boolean: 'bool' };

/** The scalar Terraform type of a zod type; objects and lists of objects are nested attributes instead. */
function ctyOf(schema: z.ZodType, where: string): CtyType {
  const { inner } = unwrap(schema);
  const def = defOf(inner);
  const scalar = SCALARS[def.type === 'literal' ? typeof def.values?.[0] : def.type];
  if (scalar) return scalar;
  switch (def.type) {
    case 'array': return ['list', ctyOf(def.element!, `${where}[]`)];
    case 'record': return ['map', ctyOf(def.valueType!, `${where}{}`)];
    default: throw new Error(`${where}: zod type ${def.type} has no Terraform attribute type`);
  }
}

const words = (text: string) => new Set(text.split(/[^\w-]+/));

/** The contract's description with what the plan needs to show: the accepted values and the default. */
function describeField(schema: z.ZodType, u: Unwrapped, note?: string): string {
  let text = describeOf(schema);
  const values = enumValues(u.inner);
  const said = words(text);
  if (values && !values.every((v) => said.has(v))) text = `${text} One of ${values.join(', ')}.`;
  const d = u.defaultValue;
  if (u.hasDefault && (typeof d === 'string' || typeof d === 'number' || typeof d === 'boolean') && !/default/i.test(text)) text = `${text} Default ${String(d)}.`;
  if (note) text = `${text} ${note}`;
  return text.trim();
}

/** Secret triples of common.ts, kept here so the derivation alone decides the attribute set. */
function secretAttributes(name: string, description: string): Record<string, Attribute> {
  return {
    [name]: { type: 'string', optional: true, sensitive: true, description: `${description} Stored in the Terraform state (sensitive); use ${name}_wo to keep it out.` },
    [`${name}_wo`]: { type: 'string', optional: true, sensitive: true, writeOnly: true, description: `Write-only form of ${name} (Terraform 1.11+): sent to the server, never stored in state. Change ${name}_wo_version to send a new value.` },
    [`${name}_wo_version`]: { type: 'number', optional: true, description: `Any number; changing it sends ${name}_wo again.` },
  };
}

/** One argument: required unless the body may leave it out; computed when the server fills a default the plan shows. */
function argument(schema: z.ZodType, where: string, facts: FieldFacts): { attribute: Attribute; nested?: Record<string, Mapping> } {
  const u = unwrap(schema);
  const base: Attribute = { description: describeField(schema, u, facts.note) };
  if (u.optional || u.hasDefault) base.optional = true;
  else base.required = true;
  if (u.hasDefault && u.defaultValue !== null) base.computed = true;
  if (facts.forceNew) base.forceNew = true;
  if (enumValues(u.inner)) base.check = (value) => { const r = u.inner.safeParse(value); return r.success ? undefined : r.error.issues[0]?.message; };
  const def = defOf(u.inner);
  const nesting = def.type === 'array' ? 'list' : 'single';
  if (facts.attributes) return { attribute: { ...base, nested: { nesting, attributes: facts.attributes } } };
  const object = objectOf(u.inner);
  if (!object) return { attribute: { ...base, type: ctyOf(u.inner, where) } };
  const inner = argumentsOf(object, facts.nested ?? {}, where);
  return { attribute: { ...base, nested: { nesting, attributes: inner.attributes } }, nested: inner.mappings };
}

/** The object of an object field or of a list of objects: those are nested attributes, not a cty type. */
function objectOf(inner: z.ZodType): z.ZodObject | undefined {
  const def = defOf(inner);
  const candidate = def.type === 'array' ? unwrap(def.element!).inner : inner;
  return shapeOf(candidate) ? (candidate as z.ZodObject) : undefined;
}

function argumentsOf(object: z.ZodObject, facts: Record<string, FieldFacts>, where: string) {
  const attributes: Record<string, Attribute> = {};
  const mappings: Record<string, Mapping> = {};
  const renamed = new Map(Object.entries(facts).filter(([, f]) => f.field).map(([attr, f]) => [f.field!, attr]));
  const shape = object.shape as Record<string, z.ZodType>;
  const attrOf = (field: string) => renamed.get(field) ?? snake(field);
  const known = new Set(Object.keys(shape).map(attrOf));
  const unknown = Object.keys(facts).filter((attr) => !known.has(attr));
  if (unknown.length) throw new Error(`${where}: facts for ${unknown.join(', ')}, which the contract's schema does not have`);
  for (const [field, schema] of Object.entries(shape)) {
    const attr = attrOf(field);
    const f = facts[attr] ?? {};
    if (f.secret) {
      Object.assign(attributes, secretAttributes(attr, describeOf(schema)));
      mappings[attr] = { field, schema, secret: true };
      continue;
    }
    const a = argument(schema, `${where}.${field}`, f);
    attributes[attr] = a.attribute;
    mappings[attr] = { field, schema, ...(a.nested ? { nested: a.nested } : {}) };
  }
  return { attributes, mappings };
}

/** A computed attribute from a field of an answer (an id, the proxy host, a masked key). */
export function recordAttribute(record: z.ZodObject, fact: RecordFact, describedBy?: z.ZodObject): Attribute {
  const schema = record.shape[fact.from] as z.ZodType | undefined;
  if (!schema) throw new Error(`the answer has no field ${fact.from}`);
  const u = unwrap(schema);
  const fallback = describedBy?.shape[fact.from] as z.ZodType | undefined;
  const described = describeOf(schema) || (fallback ? describeOf(fallback) : '');
  const description = fact.description ?? (fact.note ? `${described} ${fact.note}` : described);
  const a: Attribute = { computed: true, description };
  if (fact.type) a.type = fact.type;
  else if (shapeOf(u.inner)) {
    const inner = recordObject(u.inner as z.ZodObject);
    a.nested = { nesting: 'single', attributes: inner };
  } else a.type = ctyOf(u.inner, fact.from);
  if (fact.stable) a.stable = true;
  if (fact.sensitive) a.sensitive = true;
  return a;
}

function recordObject(object: z.ZodObject): Record<string, Attribute> {
  return Object.fromEntries(Object.keys(object.shape).map((f) => [snake(f), recordAttribute(object, { from: f })]));
}

const isRecordFact = (x: Extra): x is RecordFact => typeof (x as RecordFact).from === 'string';

export function deriveResource<B extends z.ZodObject>(r: ResourceFacts<B>): DerivedResource<B> {
  const attributes: Record<string, Attribute> = {};
  const mappings: Record<string, Mapping> = {};
  const extras = (group: Record<string, Extra> | undefined) => {
    for (const [attr, x] of Object.entries(group ?? {})) {
      if (!isRecordFact(x)) { attributes[attr] = x; continue; }
      const record = x.record ?? r.record;
      if (!record) throw new Error(`${attr}: a computed attribute needs the answer it is read from`);
      attributes[attr] = recordAttribute(record, x, r.body);
      if (!x.type && !x.record) mappings[attr] = { field: x.from, schema: record.shape[x.from] as z.ZodType, computed: true };
    }
  };
  extras(r.before);
  const body = argumentsOf(r.body, r.facts ?? {}, r.body.description ?? 'body');
  Object.assign(attributes, body.attributes);
  Object.assign(mappings, body.mappings);
  extras(r.after);
  const renames = Object.fromEntries(Object.entries(body.mappings).filter(([attr, m]) => snake(m.field) !== attr).map(([attr, m]) => [m.field, attr]));
  return {
    schema: { version: 0, description: r.description, attributes },
    renames,
    readBack: Object.fromEntries(Object.entries(body.mappings).filter(([, m]) => !m.secret).map(([attr, m]) => [attr, m.field])),
    body: (values) => toBody(body.mappings, values) as z.input<B>,
    state: (record, prior) => toState(mappings, attributes, record, prior),
  };
}

const acceptsNull = (schema: z.ZodType) => schema.safeParse(null).success;

function toBody(mappings: Record<string, Mapping>, values: ObjectValue): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [attr, m] of Object.entries(mappings)) {
    if (m.secret || m.computed) continue;
    const v = values[attr] ?? null;
    if (v === null) {
      if (acceptsNull(m.schema)) out[m.field] = null;
      continue;
    }
    out[m.field] = m.nested ? mapObjects(v, (o) => toBody(m.nested!, o)) : v;
  }
  return out;
}

function mapObjects<T>(v: Value, f: (o: ObjectValue) => T): T | T[] | null {
  if (Array.isArray(v)) return v.filter((x): x is ObjectValue => !!x && typeof x === 'object' && !Array.isArray(x)).map(f);
  return v && typeof v === 'object' ? f(v as ObjectValue) : null;
}

function toState(mappings: Record<string, Mapping>, attributes: Record<string, Attribute>, record: Record<string, unknown>, prior: ObjectValue): ObjectValue {
  const out: ObjectValue = {};
  for (const [attr, m] of Object.entries(mappings)) {
    if (m.secret) {
      // Never in an answer: the state keeps what terraform last sent, and never a write-only value.
      out[attr] = prior[attr] ?? null;
      out[`${attr}_wo`] = null;
      out[`${attr}_wo_version`] = prior[`${attr}_wo_version`] ?? null;
      continue;
    }
    out[attr] = fromRecord(record[m.field], attributes[attr]!, m.nested);
  }
  return out;
}

function fromRecord(v: unknown, attribute: Attribute, nested?: Record<string, Mapping>): Value {
  if (v === undefined || v === null) return null;
  const inner = attribute.nested;
  if (inner && nested) {
    const one = (o: unknown): Value => {
      const rec = (o ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(nested).map(([a, m]) => [a, fromRecord(rec[m.field], inner.attributes[a]!, m.nested)]));
    };
    return Array.isArray(v) ? v.map(one) : one(v);
  }
  return v as Value;
}
