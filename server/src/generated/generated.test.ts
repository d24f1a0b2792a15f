import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generatedFiles } from './files.ts';

test('checked-in generated files are current (run `npm run gen` when this fails)', async () => {
  const root = new URL('../../../', import.meta.url).pathname;
  for (const f of await generatedFiles()) {
    let current = '';
    try {
      current = readFileSync(root + f.path, 'utf8');
    } catch { /* missing */ }
    assert.ok(current === f.content, `${f.path} is stale`);
  }
});
