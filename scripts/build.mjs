#!/usr/bin/env node
// npm run build: compiles contract/src to contract/dist (with declarations, which the server's build type-checks
// against), then server/src to server/dist (tsc, with `.ts` import paths rewritten to `.js`), copies the files
// the code reads at run time (SQL migrations), then stamps the build. With --if-stale it does nothing when the
// build is already up to date with the sources.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { compiledIsFresh, contractDir, distDir, serverDir, srcDir, stampFile } from '../server/bin/compiled.mjs';

if (process.argv.includes('--if-stale') && compiledIsFresh()) process.exit(0);

const t0 = Date.now();
process.stderr.write('building contract/dist and server/dist ... ');
const tsc = join(serverDir, '..', 'node_modules', 'typescript', 'bin', 'tsc');
for (const [dir, dist] of [[contractDir, join(contractDir, 'dist')], [serverDir, distDir]]) {
  rmSync(dist, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (r.status !== 0) {
    rmSync(distDir, { recursive: true, force: true });
    process.stderr.write('failed\n');
    process.exit(r.status ?? 1);
  }
}
cpSync(join(srcDir, 'db', 'migrations'), join(distDir, 'db', 'migrations'), { recursive: true });
writeFileSync(stampFile, `${new Date().toISOString()}\n`);
process.stderr.write(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
