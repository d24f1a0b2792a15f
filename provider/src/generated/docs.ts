// One reference page per resource and data source (docs/terraform/), rendered from the provider's own schema, so
// the pages say exactly what terraform accepts.
import type { Attribute, ProviderDefinition, Schema } from '../framework/types.ts';
import { PAGE_EXTRAS } from './examples.ts';

export const DOCS_DIR = 'docs/terraform';

export interface GeneratedFile { path: string; content: string }

function typeName(a: Attribute): string {
  if (a.nested) return `${a.nested.nesting === 'single' ? 'object' : `${a.nested.nesting} of objects`}`;
  const t = a.type;
  if (typeof t === 'string') return t;
  return t ? `${t[0]}(${typeof t[1] === 'string' ? t[1] : 'object'})` : 'dynamic';
}

function flags(a: Attribute): string {
  const f = [a.required ? 'required' : a.optional ? 'optional' : 'computed'];
  if (a.optional && a.computed) f.push('computed when unset');
  if (a.sensitive) f.push('sensitive');
  if (a.writeOnly) f.push('write-only');
  if (a.forceNew) f.push('forces replacement');
  return f.join(', ');
}

function rows(attrs: Record<string, Attribute>, prefix = ''): string[] {
  return Object.entries(attrs).flatMap(([name, a]) => [
    `| \`${prefix}${name}\` | ${typeName(a)} | ${flags(a)} | ${a.description.replaceAll('|', '\\|').replaceAll('\n', ' ')} |`,
    ...(a.nested ? rows(a.nested.attributes, `${prefix}${name}.`) : []),
  ]);
}

function table(attrs: Record<string, Attribute>): string {
  return ['| Name | Type | | Description |', '|---|---|---|---|', ...rows(attrs)].join('\n');
}

function page(title: string, schema: Schema, key: string): string {
  const extras = PAGE_EXTRAS[key];
  if (!extras) throw new Error(`no example for ${key} in generated/examples.ts`);
  const args = Object.fromEntries(Object.entries(schema.attributes).filter(([, a]) => a.required || a.optional));
  const computed = Object.fromEntries(Object.entries(schema.attributes).filter(([, a]) => a.computed && !a.optional && !a.required));
  const parts = [
    `<!-- Generated from the provider schema by \`npm run gen\`; do not edit. -->`,
    `# ${title}`, '', schema.description, '',
    '## Example', '', '```hcl', extras.example, '```', '',
    '## Arguments', '', table(args), '',
  ];
  if (Object.keys(computed).length) parts.push('## Attributes', '', table(computed), '');
  if (extras.importId) parts.push('## Import', '', `Import id: \`${extras.importId}\`.`, '', '```shell', `terraform import ${key}.example <id>`, '```', '');
  return parts.join('\n');
}

export function renderProviderDocs<Client>(p: ProviderDefinition<Client>): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  const index = ['<!-- Generated from the provider schema by `npm run gen`; do not edit. -->', '# Terraform provider reference', '',
    'Provider arguments:', '', table(p.schema.attributes), '', '## Resources', ''];
  for (const [name, r] of Object.entries(p.resources)) {
    files.push({ path: `${DOCS_DIR}/resources/${name}.md`, content: page(`Resource ${name}`, r.schema, name) });
    index.push(`- [${name}](resources/${name}.md): ${r.schema.description}`);
  }
  index.push('', '## Data sources', '');
  for (const [name, d] of Object.entries(p.dataSources)) {
    files.push({ path: `${DOCS_DIR}/data-sources/${name}.md`, content: page(`Data source ${name}`, d.schema, `data.${name}`) });
    index.push(`- [${name}](data-sources/${name}.md): ${d.schema.description}`);
  }
  files.push({ path: `${DOCS_DIR}/README.md`, content: `${index.join('\n')}\n` });
  return files;
}
