#!/usr/bin/env node
// Runs every *.test.ts under contract/, server/, operator/, provider/ and test/ with node's test runner (TypeScript
// via tsx; the workspace packages resolve to their sources through the `tollgate-source` export condition).
// Node 20's --test takes no globs, so the files are listed here. Extra args are passed through (e.g. a file filter).
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const roots = ['contract/src', 'server/src', 'operator/src', 'provider/src', 'test'];
const skip = new Set(['node_modules', 'dist', '.tollgate', '.cache']);

function walk(dir, out) {
  let entries;
  try { entries = readdirSync(dir); } catch { return out; }
  for (const name of entries) {
    if (skip.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
let files = roots.flatMap((r) => walk(join(root, r), [])).sort();
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (!files.length) { console.error('no test files matched'); process.exit(1); }
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const r = spawnSync(process.execPath, ['--conditions=tollgate-source', '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...flags, ...files], {
  cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' },
});
process.exit(r.status ?? 1);
