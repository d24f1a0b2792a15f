// The rule attributes of tollgate_rule_set, generated from the contract's rule schemas: one flat object per rule
// with `rule_type` and every field of every rule type (a field shared by several types has one type everywhere,
// which a test checks). Fields of other rule types must stay null; the plan fills the chosen type's defaults.
import { z } from 'zod';
import { RULE_SCHEMAS, RULE_TYPES, type RuleType } from '@tollgate/contract';
import type { Attribute, CtyType } from '../framework/types.ts';

interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  description?: string;
  default?: unknown;
}

function ctyOf(s: JsonSchema, where: string): CtyType {
  if (s.anyOf) {
    const nonNull = s.anyOf.filter((x) => x.type !== 'null');
    if (nonNull.length === 1) return ctyOf(nonNull[0]!, where);
    throw new Error(`${where}: a union of ${nonNull.length} types has no Terraform attribute type`);
  }
  switch (s.type) {
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'number': case 'integer': return 'number';
    case 'array': return ['list', ctyOf(s.items ?? {}, `${where}[]`)];
    default: throw new Error(`${where}: JSON type ${JSON.stringify(s.type)} has no Terraform attribute type`);
  }
}

export interface RuleField {
  type: CtyType;
  description: string;
  /** The rule types that have this field. */
  ruleTypes: RuleType[];
}

function jsonSchemaOf(t: RuleType): { properties: Record<string, JsonSchema> } {
  return z.toJSONSchema(RULE_SCHEMAS[t], { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema> };
}

/** Every rule field with its type and the rule types that have it; throws if two types disagree on a field's type. */
function collectRuleFields(): Map<string, RuleField> {
  const out = new Map<string, RuleField>();
  for (const t of RULE_TYPES) {
    for (const [name, js] of Object.entries(jsonSchemaOf(t).properties)) {
      if (name === 'rule_type') continue;
      const type = ctyOf(js, `${t}.${name}`);
      const seen = out.get(name);
      if (seen && JSON.stringify(seen.type) !== JSON.stringify(type)) {
        throw new Error(`rule field ${name} is ${JSON.stringify(seen.type)} in ${seen.ruleTypes.join(', ')} but ${JSON.stringify(type)} in ${t}`);
      }
      const description = seen?.description || js.description || '';
      out.set(name, { type, description, ruleTypes: [...(seen?.ruleTypes ?? []), t] });
    }
  }
  return out;
}

/** Computed once per process: the schema and the rule planning both read it, and every terraform command starts
 * several provider processes. */
export const RULE_FIELDS: ReadonlyMap<string, RuleField> = collectRuleFields();

export function ruleAttributes(): Record<string, Attribute> {
  const attrs: Record<string, Attribute> = {
    rule_type: { type: 'string', required: true, description: `One of ${RULE_TYPES.join(', ')}.` },
  };
  for (const [name, f] of [...RULE_FIELDS].sort(([a], [b]) => a.localeCompare(b))) {
    attrs[name] = { type: f.type, optional: true, computed: true, description: `${f.description} (${f.ruleTypes.join(', ')})`.trim() };
  }
  return attrs;
}
