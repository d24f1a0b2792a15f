// SECURITY.md cites, for each threat, the tests that cover it (`file`: “test name”). A citation that no longer
// matches a test (renamed, moved, deleted) makes the threat model lie, so every one is checked here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `path`: “name”, “name”; the names may be absent (a whole file is cited). */
function citations(md: string): Array<{ file: string; names: string[] }> {
  const out: Array<{ file: string; names: string[] }> = [];
  for (const m of md.matchAll(/`([\w./-]+\.test\.ts)`(:\s*(?:“[^”]+”(?:,\s*)?)+)?/g)) {
    out.push({ file: m[1]!, names: [...(m[2] ?? '').matchAll(/“([^”]+)”/g)].map((n) => n[1]!) });
  }
  return out;
}

/** Test source as its names read: escaped quotes unescaped. */
function source(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8').replace(/\\(['"`])/g, '$1');
}

test('every test SECURITY.md cites exists under the name given', () => {
  const all = citations(readFileSync(join(ROOT, 'SECURITY.md'), 'utf8'));
  const named = all.reduce((n, c) => n + c.names.length, 0);
  assert.ok(all.length >= 60 && named >= 100, `${all.length} citations, ${named} test names`);
  const missing: string[] = [];
  for (const { file, names } of all) {
    if (!existsSync(join(ROOT, file))) {
      missing.push(`${file} (no such file)`);
      continue;
    }
    const text = source(file);
    for (const name of names) if (!text.includes(name)) missing.push(`${file}: “${name}”`);
  }
  assert.deepEqual(missing, []);
});
