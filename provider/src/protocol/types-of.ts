// The cty type of a framework schema: a resource is an object whose attributes are either plain cty types or nested
// attribute objects (single → object, list/set/map → a collection of objects). Encoding, decoding and path walking
// all work on this one cty description, so nested attributes need no special case anywhere else.
import type { Attribute, CtyType } from '../framework/types.ts';

export type ObjectType = ['object', Record<string, CtyType>];

export function attributeType(attribute: Attribute): CtyType {
  if (attribute.type !== undefined) return attribute.type;
  if (attribute.nested === undefined) throw new Error('an attribute needs a type or nested attributes');
  const object = objectType(attribute.nested.attributes);
  return attribute.nested.nesting === 'single' ? object : [attribute.nested.nesting, object];
}

export function objectType(attributes: Record<string, Attribute>): ObjectType {
  const fields: Record<string, CtyType> = {};
  for (const [name, attribute] of Object.entries(attributes)) fields[name] = attributeType(attribute);
  return ['object', fields];
}

/** The type one step further into a value: an object attribute, a collection element or a tuple position. */
export function stepType(type: CtyType, step: string | number): CtyType | undefined {
  if (typeof type === 'string') return type === 'dynamic' ? 'dynamic' : undefined;
  const [kind, inner] = type;
  if (kind === 'object') return typeof step === 'string' ? type[1][step] : undefined;
  if (kind === 'tuple') return typeof step === 'number' ? type[1][step] : undefined;
  return inner;
}
