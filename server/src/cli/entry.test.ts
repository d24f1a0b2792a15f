// The `tollgate` entry point: it runs the compiled build only while that build is newer than every source file.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
// @ts-expect-error plain JS module of the bin folder, no type declarations
import { compiledIsFresh } from '../../bin/compiled.mjs';

const BIN = new URL('../../bin/tollgate.mjs', import.meta.url).pathname;
const fresh = compiledIsFresh as (sources: string, stamp: string) => boolean;

test('a build is used only while no source file (tests aside) is newer than its stamp', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-entry-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const src = join(dir, 'src');
  mkdirSync(join(src, 'a'), { recursive: true });
  const stamp = join(dir, 'stamp');
  const at = (file: string, seconds: number) => {
    writeFileSync(file, 'x');
    utimesSync(file, seconds, seconds);
  };
  at(join(src, 'a', 'x.ts'), 1000);
  assert.equal(fresh(src, stamp), false, 'no build at all');
  at(stamp, 2000);
  assert.equal(fresh(src, stamp), true);
  at(join(src, 'a', 'x.test.ts'), 3000);
  assert.equal(fresh(src, stamp), true, 'an edited test does not make the build stale');
  at(join(src, 'a', 'y.ts'), 3000);
  assert.equal(fresh(src, stamp), false, 'an edited source in a sub-folder does');
  assert.equal(fresh(join(dir, 'no-sources'), stamp), true, 'a build shipped without its sources runs');
});

test('TOLLGATE_RUN_FROM=src runs the TypeScript sources; `version` and `--version` print the release version', () => {
  const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  for (const arg of ['version', '--version']) {
    const r = spawnSync(process.execPath, [BIN, arg], { env: { ...process.env, TOLLGATE_RUN_FROM: 'src' }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^tollgate ${version.replaceAll('.', '\\.')} \\(TypeScript sources through tsx, node v\\d+`), arg);
  }
});
