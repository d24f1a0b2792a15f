#!/usr/bin/env node
// npm run build: compiles server/src to server/dist (tsc, with `.ts` import paths rewritten to `.js`), copies the files
// the code reads at run time (SQL migrations), then stamps the build. With --if-stale it does nothing when the
// build is already up to date with the sources.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { compiledIsFresh, distDir, serverDir, srcDir, stampFile } from '../server/bin/compiled.mjs';

if (process.argv.includes('--if-stale') && compiledIsFresh()) process.exit(0);

const t0 = Date.now();
process.stderr.write('building server/dist ... ');
rmSync(distDir, { recursive: true, force: true });
const tsc = join(serverDir, '..', 'node_modules', 'typescript', 'bin', 'tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(serverDir, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) {
  rmSync(distDir, { recursive: true, force: true });
  process.stderr.write('failed\n');
  process.exit(r.status ?? 1);
}
cpSync(join(srcDir, 'db', 'migrations'), join(distDir, 'db', 'migrations'), { recursive: true });
writeFileSync(stampFile, `${new Date().toISOString()}\n`);
process.stderr.write(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
