// `npm run gen` (provider part): writes the generated files, or with --check fails when one is stale.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { providerGeneratedFiles } from './files.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
for (const f of providerGeneratedFiles()) {
  const path = join(root, f.path);
  let current: string | undefined;
  try { current = readFileSync(path, 'utf8'); } catch { current = undefined; }
  if (current === f.content) continue;
  if (check) { stale++; console.error(`stale: ${f.path}`); continue; }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, f.content);
  console.log(`wrote ${f.path}`);
}
if (stale) process.exit(1);
