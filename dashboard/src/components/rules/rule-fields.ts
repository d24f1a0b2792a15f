// A rule type's form, generated from its contract schema (RULE_SCHEMAS) through its JSON Schema: each field's kind,
// hint (the schema's description), default and options. A rule type added to the contract gets its form with no
// change here. Values go to the API as typed; checking them is the API's job, whose messages the form shows.
import { z } from 'zod';
import { RULE_SCHEMAS, type RuleType } from '@tollgate/contract';
import { joinList, splitList } from '../list-text.ts';

export type FieldKind = 'string' | 'text' | 'number' | 'boolean' | 'enum' | 'list' | 'enum-list';

export interface RuleFieldSpec {
  name: string;
  kind: FieldKind;
  description: string;
  required: boolean;
  /** null is a value of the field (`ban_timespan`): an empty input sends null. */
  nullable: boolean;
  options: string[];
  default: unknown;
}

/** One draft of a form: text for text inputs, booleans for checkboxes, the ticked options of an option list. */
export type RawValues = Record<string, string | boolean | string[]>;

interface JsonField {
  type?: string;
  enum?: string[];
  items?: JsonField;
  anyOf?: JsonField[];
  maxLength?: number;
  description?: string;
  default?: unknown;
  const?: unknown;
}

/** Strings this long or longer (Lua code, resource content, injected text) get a text area. */
const LONG_TEXT = 4096;

function kindOf(f: JsonField): FieldKind {
  if (f.enum) return 'enum';
  if (f.type === 'boolean') return 'boolean';
  if (f.type === 'number' || f.type === 'integer') return 'number';
  if (f.type === 'array') return f.items?.enum ? 'enum-list' : 'list';
  return (f.maxLength ?? 0) >= LONG_TEXT ? 'text' : 'string';
}

function specOf(name: string, raw: JsonField, required: boolean): RuleFieldSpec {
  const inner = raw.anyOf?.find((a) => a.type !== 'null') ?? raw;
  const nullable = !!raw.anyOf?.some((a) => a.type === 'null');
  return {
    name, kind: kindOf(inner), required, nullable,
    description: raw.description ?? inner.description ?? '',
    options: inner.enum ?? inner.items?.enum ?? [],
    default: raw.default,
  };
}

const cache = new Map<RuleType, RuleFieldSpec[]>();

/** The fields of a rule type's form, in the schema's order, without the discriminator. */
export function ruleFields(type: RuleType): RuleFieldSpec[] {
  const hit = cache.get(type);
  if (hit) return hit;
  const json = z.toJSONSchema(RULE_SCHEMAS[type], { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonField>; required?: string[] };
  const specs = Object.entries(json.properties)
    .filter(([name]) => name !== 'rule_type')
    .map(([name, f]) => specOf(name, f, json.required?.includes(name) ?? false));
  cache.set(type, specs);
  return specs;
}

export function ruleDescription(type: RuleType): string {
  return RULE_SCHEMAS[type].description ?? '';
}

function rawOf(spec: RuleFieldSpec, value: unknown): string | boolean | string[] {
  switch (spec.kind) {
    case 'boolean': return value === true;
    case 'enum-list': return Array.isArray(value) ? value.map(String) : [];
    case 'list': return joinList(Array.isArray(value) ? value.map(String) : []);
    default: return value === null || value === undefined ? '' : String(value);
  }
}

/** The form's values for a rule (to edit it), or for a new rule of the type (its defaults; tools ["*"]). */
export function rawValues(type: RuleType, rule?: Record<string, unknown>): RawValues {
  const out: RawValues = {};
  for (const spec of ruleFields(type)) {
    const fallback = spec.name === 'tools' ? ['*'] : spec.default;
    out[spec.name] = rawOf(spec, rule ? rule[spec.name] : fallback);
  }
  return out;
}

function listValue(spec: RuleFieldSpec, raw: string | boolean | string[] | undefined): string[] | undefined {
  const items = Array.isArray(raw) ? raw : splitList(typeof raw === 'string' ? raw : '');
  return items.length || spec.required ? items : undefined;
}

function textValue(spec: RuleFieldSpec, text: string): unknown {
  if (text === '' && spec.nullable) return null;
  if (spec.kind === 'number') return text.trim() === '' ? undefined : Number(text);
  if (text === '' && (spec.kind === 'enum' || !spec.required)) return undefined;
  return text;
}

/** A field's value for the API, or undefined to leave it out (an optional field left empty takes its default). */
function valueOf(spec: RuleFieldSpec, raw: string | boolean | string[] | undefined): unknown {
  if (spec.kind === 'boolean') return raw === true;
  if (spec.kind === 'enum-list' || spec.kind === 'list') return listValue(spec, raw);
  return textValue(spec, typeof raw === 'string' ? raw : '');
}

/**
 * The rule as sent: the form's fields over the rule being edited (so a field the form does not know is kept), with
 * its type.
 */
export function ruleFromValues(type: RuleType, raw: RawValues, base: Record<string, unknown> = {}): Record<string, unknown> {
  const rule: Record<string, unknown> = { ...base, rule_type: type };
  for (const spec of ruleFields(type)) {
    const v = valueOf(spec, raw[spec.name]);
    if (v === undefined) delete rule[spec.name];
    else rule[spec.name] = v;
  }
  return rule;
}
