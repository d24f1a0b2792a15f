// The rule attributes of tollgate_rule_set, from the contract's flat rule form (collectRuleFields): one flat object per rule
// with `rule_type` and every field of every rule type (a field shared by several types has one type everywhere,
// which a test checks). Fields of other rule types must stay null; the plan fills the chosen type's defaults.
import { RULE_TYPES, collectRuleFields, type RuleField as ContractRuleField, type RuleType } from '@tollgate/contract';
import type { Attribute, CtyType } from '../framework/types.ts';

interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
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

/** A field's one Terraform type; throws if two rule types disagree on it. */
function ctyOfField(f: ContractRuleField): CtyType {
  const [first, ...rest] = f.uses.map((u) => ({ ruleType: u.ruleType, type: ctyOf(u.json, `${u.ruleType}.${f.name}`) }));
  for (const other of rest) {
    if (JSON.stringify(other.type) !== JSON.stringify(first!.type)) {
      throw new Error(`rule field ${f.name} is ${JSON.stringify(first!.type)} in ${first!.ruleType} but ${JSON.stringify(other.type)} in ${other.ruleType}`);
    }
  }
  return first!.type;
}

/** Every rule field (the contract's flat rule form) with its Terraform type. */
function collectRuleAttributeFields(): Map<string, RuleField> {
  return new Map([...collectRuleFields()].map(([name, f]) => [name, { type: ctyOfField(f), description: f.description, ruleTypes: f.ruleTypes }]));
}

/** Computed once per process: the schema and the rule planning both read it, and every terraform command starts
 * several provider processes. */
export const RULE_FIELDS: ReadonlyMap<string, RuleField> = collectRuleAttributeFields();

export function ruleAttributes(): Record<string, Attribute> {
  const attrs: Record<string, Attribute> = {
    rule_type: { type: 'string', required: true, description: `One of ${RULE_TYPES.join(', ')}.` },
  };
  for (const [name, f] of [...RULE_FIELDS].sort(([a], [b]) => a.localeCompare(b))) {
    attrs[name] = { type: f.type, optional: true, computed: true, description: `${f.description} (${f.ruleTypes.join(', ')})`.trim() };
  }
  return attrs;
}
