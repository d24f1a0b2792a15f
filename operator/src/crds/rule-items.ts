// The items of a RuleSet's `rules`: the contract's rule union in its flat structural form (a structural schema has no
// union of object types). One object with `rule_type` and every field of every rule type; CEL rules on the item say
// which fields each rule type needs and which it must not have, and carry the rule types' cross-field refinements.
// Defaults are left out (they depend on the rule type): the operator parses each rule with the contract, which fills
// them. The per-type checks a structural schema cannot hold (a field whose constraints differ between rule types,
// RE2 syntax, Lua compilation) are the operator's and the server's.
import {
  DETECTOR_IDS, RULE_CROSS_FIELD_RULES, RULE_TYPES, collectRuleFields, type RuleField, type RuleType,
} from '@tollgate/contract';
import { structuralSchema, type JsonSchema } from './structural.ts';
import { celList, celString, unboundedLists, wordList, type Validation } from './cel.ts';

/**
 * Bounds the contract leaves open, added for the CRD: every list needs maxItems and every string a CEL rule compares
 * needs maxLength (or an enum) for the API server's cost estimate of the rules. Generous beside real use.
 */
const FIELD_BOUNDS: Record<string, JsonSchema> = {
  tools: { maxItems: 500, items: { maxLength: 256 } },
  cidrs: { maxItems: 1000 },
  inject_into_tools: { maxItems: 500 },
  audience: { maxItems: 2 },
  detectors: { maxItems: DETECTOR_IDS.length },
  cache_identity_claims: { maxItems: 32 },
  name: { maxLength: 128 }, // rate_limit names are compared for uniqueness (rule-set.ts)
};

/** A schema without defaults and nullable: in the flat form an unset field is null, and the defaults are per type. */
function withoutDefaults(s: JsonSchema): JsonSchema {
  const { default: _d, nullable: _n, ...rest } = s;
  if (rest.properties) {
    rest.properties = Object.fromEntries(Object.entries(rest.properties as Record<string, JsonSchema>).map(([k, v]) => [k, withoutDefaults(v)]));
  }
  if (rest.items) rest.items = withoutDefaults(rest.items as JsonSchema);
  return rest;
}

function withoutDescription(s: JsonSchema): JsonSchema {
  const { description: _d, ...rest } = s;
  return rest;
}

/** The type (and, for lists, the item type) that several schemas share; throws if they have none in common. */
function commonType(name: string, schemas: readonly JsonSchema[]): JsonSchema {
  const types = new Set(schemas.map((s) => s.type));
  if (types.size !== 1) throw new Error(`rule field ${name} has no common type (${[...types].join(', ')})`);
  const [type] = types;
  if (type !== 'array') return { type };
  return { type, items: commonType(`${name}[]`, schemas.map((s) => s.items as JsonSchema)), 'x-kubernetes-list-type': 'atomic' };
}

function stringEnum(s: JsonSchema): string[] | undefined {
  return s.type === 'string' && Array.isArray(s.enum) ? (s.enum as string[]) : undefined;
}

/**
 * One schema for a field several rule types share: theirs if they agree, else the union of their enums when every one
 * is a string enum, else only the common type.
 */
function mergedConstraints(f: RuleField): JsonSchema {
  const variants = f.uses.map((u) => withoutDescription(withoutDefaults(structuralSchema(u.schema))));
  const [first] = variants;
  if (variants.every((v) => JSON.stringify(v) === JSON.stringify(first))) return first!;
  const enums = variants.map(stringEnum);
  if (enums.every((e) => e !== undefined)) return { type: 'string', enum: [...new Set(enums.flat())] };
  return commonType(f.name, variants);
}

/** Each description once, naming the rule types that give it. */
function fieldDescription(f: RuleField): string {
  const byText = new Map<string, RuleType[]>();
  for (const u of f.uses) {
    const text = typeof u.json.description === 'string' ? u.json.description : '';
    byText.set(text, [...(byText.get(text) ?? []), u.ruleType]);
  }
  const texts = [...byText].filter(([text]) => text);
  if (texts.length <= 1) return `${texts[0]?.[0] ?? ''} (${f.ruleTypes.join(', ')})`.trim();
  return texts.map(([text, types]) => `${types.join(', ')}: ${text}`).join(' ');
}

/** The schema with the bounds of FIELD_BOUNDS it lacks (the contract's own bounds win). */
function withBounds(name: string, s: JsonSchema): JsonSchema {
  const { items, ...own } = FIELD_BOUNDS[name] ?? {};
  const out: JsonSchema = { ...own, ...s };
  if (items) out.items = { ...(items as JsonSchema), ...(s.items as JsonSchema) };
  return out;
}

export function ruleFieldSchema(f: RuleField): JsonSchema {
  return { description: fieldDescription(f), ...withBounds(f.name, mergedConstraints(f)) };
}

const RULE_FIELDS = collectRuleFields();

/** Fields every rule type needs: required by the schema itself, not by a CEL rule. */
const ALWAYS_REQUIRED = [...RULE_FIELDS.values()]
  .filter((f) => f.ruleTypes.length === RULE_TYPES.length && f.uses.every((u) => u.required)).map((f) => f.name);

function requiredFieldRules(): Validation[] {
  return RULE_TYPES.flatMap((t) => {
    const needed = [...RULE_FIELDS.values()].filter((f) => f.uses.some((u) => u.ruleType === t && u.required) && !ALWAYS_REQUIRED.includes(f.name));
    if (!needed.length) return [];
    return [{
      rule: `self.rule_type != ${celString(t)} || (${needed.map((f) => `has(self.${f.name})`).join(' && ')})`,
      message: `${t} rules need ${wordList(needed.map((f) => f.name))}`,
      reason: 'FieldValueRequired' as const,
    }];
  });
}

function foreignFieldRules(): Validation[] {
  return [...RULE_FIELDS.values()].filter((f) => f.ruleTypes.length < RULE_TYPES.length).map((f) => ({
    rule: f.ruleTypes.length === 1
      ? `!has(self.${f.name}) || self.rule_type == ${celString(f.ruleTypes[0]!)}`
      : `!has(self.${f.name}) || self.rule_type in ${celList(f.ruleTypes)}`,
    message: `${f.name} is a field of ${wordList(f.ruleTypes)} rules only`,
    fieldPath: `.${f.name}`,
    reason: 'FieldValueForbidden' as const,
  }));
}

/** Where a shared field's enum is the union of the rule types' enums, each type's own values. */
function narrowedEnumRules(items: JsonSchema): Validation[] {
  const props = items.properties as Record<string, JsonSchema>;
  return [...RULE_FIELDS.values()].flatMap((f) => f.uses.flatMap((u) => {
    const own = stringEnum(structuralSchema(u.schema));
    if (!own || own.length === stringEnum(props[f.name]!)?.length) return [];
    return [{
      rule: `self.rule_type != ${celString(u.ruleType)} || !has(self.${f.name}) || self.${f.name} in ${celList(own)}`,
      message: `${f.name} of ${u.ruleType} rules must be one of ${own.join(', ')}`,
      fieldPath: `.${f.name}`,
      reason: 'FieldValueInvalid' as const,
    }];
  }));
}

function crossFieldRules(): Validation[] {
  return RULE_TYPES.flatMap((t) => RULE_CROSS_FIELD_RULES[t].map((r) => ({
    rule: `self.rule_type != ${celString(t)} || (${r.cel})`,
    message: r.message,
    ...(r.fieldPath ? { fieldPath: r.fieldPath } : {}),
  })));
}

/** The schema of one item of a RuleSet's `rules`, with its CEL rules. */
export function ruleItemSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    rule_type: { type: 'string', enum: [...RULE_TYPES], description: `The rule type: ${RULE_TYPES.join(', ')}.` },
  };
  for (const f of RULE_FIELDS.values()) properties[f.name] = ruleFieldSchema(f);
  const items: JsonSchema = {
    type: 'object',
    description: 'One rule: rule_type and the fields of that rule type (REST names, snake_case).',
    properties,
    required: ['rule_type', ...ALWAYS_REQUIRED],
  };
  const unbounded = unboundedLists(items);
  if (unbounded.length) throw new Error(`rule fields without maxItems (add them to FIELD_BOUNDS): ${unbounded.join(', ')}`);
  items['x-kubernetes-validations'] = [...requiredFieldRules(), ...foreignFieldRules(), ...narrowedEnumRules(items), ...crossFieldRules()];
  return items;
}
