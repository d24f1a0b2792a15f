#!/usr/bin/env node
// The compile step of `npm run build`: `tsc -b tsconfig.build.json`, the project references of contract (with
// declarations, which the others type-check against), server and operator, each into its dist/ with `.ts` import
// paths rewritten to `.js`. Then it copies the files the server reads at run time (SQL migrations) and stamps each
// workspace it built (server/bin/compiled.mjs says when a stamp is fresh). A stale workspace's dist/ is emptied
// first, so nothing of a deleted or newly excluded source survives in it. With --if-stale it builds only when some
// workspace is stale, and does nothing otherwise.
import { cpSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { isFresh, rootDir, server, workspaces } from '../server/bin/compiled.mjs';

const stale = process.argv.includes('--if-stale') ? workspaces.filter((ws) => !isFresh(ws)) : workspaces;
if (!stale.length) process.exit(0);

const t0 = Date.now();
process.stderr.write(`building ${stale.map((ws) => `${ws.name}/dist`).join(', ')} ... `);
for (const ws of stale) rmSync(ws.distDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-b', join(rootDir, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) {
  for (const ws of stale) rmSync(ws.distDir, { recursive: true, force: true });
  process.stderr.write('failed\n');
  process.exit(r.status ?? 1);
}
if (stale.includes(server)) cpSync(join(server.srcDir, 'db', 'migrations'), join(server.distDir, 'db', 'migrations'), { recursive: true });
// Dated when the compiler started reading: a source saved during the build makes that build stale.
for (const ws of stale) {
  writeFileSync(ws.stampFile, `${new Date(t0).toISOString()}\n`);
  utimesSync(ws.stampFile, t0 / 1000, t0 / 1000);
}
process.stderr.write(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
