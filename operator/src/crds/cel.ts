// CEL validation rules (x-kubernetes-validations) and the few edits the CRD generator makes to a structural schema
// built from zod: find a node by its path, attach rules to it, add bounds the contract leaves open.
import type { JsonSchema } from './structural.ts';

/** One entry of x-kubernetes-validations. `self` is the node the rule sits on. */
export interface Validation {
  rule: string;
  message: string;
  /** The field the message is about, relative to the node (`.tokenSecretRef`). */
  fieldPath?: string;
  /** How the API server words the error; FieldValueDuplicate would drop the message, so it is not offered. */
  reason?: 'FieldValueRequired' | 'FieldValueForbidden' | 'FieldValueInvalid';
}

/** The node at a dotted path of property names (`rules[]` is the items of the list `rules`). */
export function nodeAt(schema: JsonSchema, path: string): JsonSchema {
  let node = schema;
  for (const step of path.split('.')) {
    const name = step.replace(/\[\]$/, '');
    node = ((node.properties ?? {}) as Record<string, JsonSchema>)[name] ?? missing(path, name);
    if (step !== name) node = (node.items as JsonSchema | undefined) ?? missing(path, step);
  }
  return node;
}

function missing(path: string, step: string): never {
  throw new Error(`CRD schema: no ${step} on the way to ${path}`);
}

export function addValidations(node: JsonSchema, ...rules: Validation[]): void {
  if (!rules.length) return;
  node['x-kubernetes-validations'] = [...((node['x-kubernetes-validations'] as Validation[] | undefined) ?? []), ...rules];
}

/** A CEL list literal of strings. */
export function celList(values: readonly string[]): string {
  return `[${values.map(celString).join(', ')}]`;
}

export function celString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** "a", "a and b", "a, b and c". */
export function wordList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** Where a list has no maxItems: every list needs one so the API server can bound the CEL cost (and etcd the size). */
export function unboundedLists(schema: JsonSchema, path = ''): string[] {
  const out: string[] = [];
  if (schema.type === 'array' && typeof schema.maxItems !== 'number') out.push(path || '(root)');
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) out.push(...unboundedLists(v, path ? `${path}.${k}` : k));
  if (schema.items) out.push(...unboundedLists(schema.items as JsonSchema, `${path}[]`));
  return out;
}
