// `npm run gen` (CRD part): writes crds/*.yaml and their copies in the chart charts/tollgate-crds, or with --check
// lists the stale ones and exits 1.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chartCrdFiles, crdFiles } from './crds.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
for (const f of [...crdFiles(), ...chartCrdFiles()]) {
  const path = join(root, f.path);
  let current: string | undefined;
  try { current = readFileSync(path, 'utf8'); } catch { current = undefined; }
  if (current === f.content) continue;
  if (check) { stale++; console.error(`stale: ${f.path} (run npm run gen)`); continue; }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, f.content);
  console.log(`wrote ${f.path}`);
}
if (stale) process.exit(1);
