import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { providerGeneratedFiles } from './files.ts';

test('the checked-in Terraform reference pages are current (run `npm run gen` when this fails)', () => {
  const root = new URL('../../../', import.meta.url).pathname;
  const files = providerGeneratedFiles();
  assert.equal(files.filter((f) => f.path.includes('/resources/')).length, 6);
  assert.equal(files.filter((f) => f.path.includes('/data-sources/')).length, 3);
  for (const f of files) {
    let current = '';
    try { current = readFileSync(root + f.path, 'utf8'); } catch { /* missing */ }
    assert.ok(current === f.content, `${f.path} is stale`);
  }
});
