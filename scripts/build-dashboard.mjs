#!/usr/bin/env node
// Builds the dashboard (dashboard/ → dashboard/dist) with Vite. With --if-stale it does nothing when dist is newer
// than every source of the dashboard and of the contract it bundles: `npm start` runs it so that a fresh clone serves
// the dashboard without a separate build step.
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledIsFresh } from '../server/bin/compiled.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dashboard = join(root, 'dashboard');
const stamp = join(dashboard, 'dist', 'index.html');

const inputs = ['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => join(dashboard, p)).concat(join(root, 'contract', 'src'));
if (process.argv.includes('--if-stale') && compiledIsFresh(inputs, stamp)) process.exit(0);

process.stderr.write('building dashboard/dist ... ');
const t0 = Date.now();
const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: dashboard, stdio: ['ignore', 'inherit', 'inherit'] });
if (r.status !== 0) {
  process.stderr.write('failed\n');
  process.exit(r.status ?? 1);
}
process.stderr.write(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
