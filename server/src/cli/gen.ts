// `tollgate gen [--check]`: writes (or checks) the files generated from the zod schemas.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { generatedFiles } from '../generated/files.ts';

export async function runGen(args: string[]): Promise<number> {
  const check = args.includes('--check');
  const root = new URL('../../../', import.meta.url).pathname;
  let stale = 0;
  for (const f of await generatedFiles()) {
    const path = root + f.path;
    let current: string | undefined;
    try {
      current = readFileSync(path, 'utf8');
    } catch { /* missing */ }
    if (current === f.content) continue;
    if (check) {
      process.stderr.write(`stale generated file: ${f.path} (run npm run gen)\n`);
      stale++;
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.content);
      process.stdout.write(`wrote ${f.path}\n`);
    }
  }
  return stale ? 1 : 0;
}
