// Framework Schema → the protocol's Schema message: one block of attributes (this provider declares no nested
// blocks), each with its cty type as compact JSON bytes or, for nested attributes, a nested_type object.
import type { Attribute, Nesting, Schema } from '../framework/types.ts';
import type { WireAttribute, WireNesting, WireSchema } from './wire.ts';

const nestings: Record<Nesting, WireNesting> = { single: 'SINGLE', list: 'LIST', set: 'SET', map: 'MAP' };
const noBytes = Buffer.alloc(0);

export function toWireSchema(schema: Schema): WireSchema {
  return {
    version: schema.version,
    block: {
      version: schema.version,
      attributes: toWireAttributes(schema.attributes),
      block_types: [],
      description: schema.description,
      description_kind: 'PLAIN',
    },
  };
}

function toWireAttributes(attributes: Record<string, Attribute>): WireAttribute[] {
  return Object.keys(attributes).sort().map((name) => toWireAttribute(name, attributes[name]!));
}

function toWireAttribute(name: string, attribute: Attribute): WireAttribute {
  const wire: WireAttribute = {
    name,
    type: attribute.type === undefined ? noBytes : Buffer.from(JSON.stringify(attribute.type)),
    description: attribute.description,
    description_kind: 'PLAIN',
    required: attribute.required === true,
    optional: attribute.optional === true,
    computed: attribute.computed === true,
    sensitive: attribute.sensitive === true,
    write_only: attribute.writeOnly === true,
  };
  if (attribute.nested !== undefined) {
    wire.nested_type = { attributes: toWireAttributes(attribute.nested.attributes), nesting: nestings[attribute.nested.nesting] };
  }
  return wire;
}
