#!/usr/bin/env node
// Generates the CDKTF TypeScript bindings of the provider from its own schema, as terraform reports it
// (`terraform providers schema -json` in a directory initialised with the provider), into provider/cdktf/.
//   node provider/scripts/cdktf-bindings.mjs <schema.json> [outdir]
// The end-to-end terraform test regenerates them the same way and fails when the checked-in copy is stale.
// @cdktf/provider-generator's index requires jsii-pacmak, which it does not declare; the generator module itself
// does not, so it is loaded directly.
import { createRequire } from 'node:module';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Renders the bindings of `schema` into `outdir` (replaced). */
export async function generateBindings(schema, outdir) {
  const { TerraformProviderGenerator } = require('@cdktf/provider-generator/lib/get/generator/provider-generator');
  const { CodeMaker } = require('codemaker');
  const code = new CodeMaker();
  const generator = new TerraformProviderGenerator(code, schema);
  generator.generateAll();
  rmSync(outdir, { recursive: true, force: true });
  await code.save(outdir);
}

export const BINDINGS_DIR = fileURLToPath(new URL('../cdktf/', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [schemaFile, outdir = BINDINGS_DIR] = process.argv.slice(2);
  if (!schemaFile) {
    console.error('usage: node provider/scripts/cdktf-bindings.mjs <schema.json from `terraform providers schema -json`> [outdir]');
    process.exit(2);
  }
  await generateBindings(JSON.parse(readFileSync(schemaFile, 'utf8')), outdir);
  console.log(`wrote CDKTF bindings to ${outdir}`);
}

