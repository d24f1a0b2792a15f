// The dashboard's weight: the JS and CSS it is built to (dashboard/dist/assets), raw and gzipped (zlib's default level, what a
// compressing proxy sends). The gzipped JS must stay within the budget docs/dashboard.md states; a new dependency that
// breaks it is a decision to make on purpose (raise the budget there and here), not by accident.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildDashboard } from './kit.ts';

/** Gzipped JavaScript, bytes (docs/dashboard.md, "Bundle size"). */
export const JS_GZIP_BUDGET = 150 * 1024;

const dist = fileURLToPath(new URL('../../dashboard/dist/', import.meta.url));

interface Size { raw: number; gzip: number }

function measure(files: string[]): Size {
  return files.reduce((s, f) => {
    const bytes = readFileSync(join(dist, f));
    return { raw: s.raw + bytes.length, gzip: s.gzip + gzipSync(bytes).length };
  }, { raw: 0, gzip: 0 });
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

test('the built JS and CSS are measured, and the gzipped JS stays within its budget', (t) => {
  buildDashboard();
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
  assert.ok(refs.some((r) => r.endsWith('.js')) && refs.some((r) => r.endsWith('.css')), `index.html loads its script and stylesheet: ${refs.join(', ')}`);
  // Every built file, chunks loaded later included: what a full visit of the dashboard downloads.
  const assets = readdirSync(join(dist, 'assets')).map((f) => `assets/${f}`);
  for (const r of refs) assert.ok(assets.includes(r), `${r} is built`);
  const js = assets.filter((r) => r.endsWith('.js'));
  const css = assets.filter((r) => r.endsWith('.css'));
  const j = measure(js);
  const c = measure(css);
  t.diagnostic(`JS ${kb(j.raw)} raw, ${kb(j.gzip)} gzip; CSS ${kb(c.raw)} raw, ${kb(c.gzip)} gzip; budget ${kb(JS_GZIP_BUDGET)} gzip JS`);
  assert.ok(j.gzip > 10 * 1024, 'the measure reads the real bundle (Preact, the contract, uPlot)');
  assert.ok(j.gzip <= JS_GZIP_BUDGET, `gzipped JS ${kb(j.gzip)} is over the budget of ${kb(JS_GZIP_BUDGET)}`);
});
