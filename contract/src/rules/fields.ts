// The rule union in its flat form: every field of every rule type, with the rule types that have it. Surfaces that
// cannot take a union of object types (a Terraform attribute list, a CRD's structural schema) show one object per rule
// with `rule_type` and all these fields; a field of another rule type stays unset. The Terraform provider and the
// operator's CRD generator both read it from here.
import { z } from 'zod';
import { RULE_SCHEMAS, RULE_TYPES, type RuleType } from './registry.ts';

type JsonSchema = Record<string, unknown>;

/** One rule type's version of a field. */
export interface RuleFieldUse {
  ruleType: RuleType;
  /** The field's zod schema in that rule type. */
  schema: z.ZodType;
  /** Its JSON Schema (2020-12, as input; what zod cannot represent is left open). */
  json: Record<string, unknown>;
  /** Whether a rule of that type is refused without it (no default, not optional). */
  required: boolean;
}

export interface RuleField {
  name: string;
  /** The first description any rule type gives the field ('' if none does). */
  description: string;
  /** The rule types that have this field, in RULE_TYPES order. */
  ruleTypes: RuleType[];
  uses: RuleFieldUse[];
}

function inputJsonSchema(schema: z.ZodType): { properties: Record<string, JsonSchema>; required?: string[] } {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema>; required?: string[] };
}

/** Every rule field but rule_type, in order of first appearance over RULE_TYPES. */
export function collectRuleFields(): Map<string, RuleField> {
  const out = new Map<string, RuleField>();
  for (const ruleType of RULE_TYPES) {
    const schema = RULE_SCHEMAS[ruleType];
    const json = inputJsonSchema(schema);
    for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      if (name === 'rule_type') continue;
      const use: RuleFieldUse = { ruleType, schema: field, json: json.properties[name] ?? {}, required: json.required?.includes(name) ?? false };
      const seen = out.get(name) ?? { name, description: '', ruleTypes: [], uses: [] };
      if (!seen.description && typeof use.json.description === 'string') seen.description = use.json.description;
      seen.ruleTypes.push(ruleType);
      seen.uses.push(use);
      out.set(name, seen);
    }
  }
  return out;
}
