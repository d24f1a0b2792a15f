// The version lives in the root package.json; every other place that states it is a derived copy that
// scripts/version.mjs rewrites. These tests fail when a copy drifts, when --set misses or mangles one, and when the
// programs stop showing the version they are built from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
// @ts-expect-error a plain .mjs script: no types
import { derivedCopies, mismatches, readVersion } from '../../scripts/version.mjs';
// @ts-expect-error a plain .mjs script: no types
import { bundleProvider } from '../../provider/scripts/bundle.mjs';
import { PROVIDER_VERSION } from '../../provider/src/provider.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const version = readVersion();

test('every derived copy states the root package.json version', () => {
  const copies = derivedCopies();
  const files = new Set(copies.map((c: { file: string }) => c.file));
  for (const file of ['contract/package.json', 'server/package.json', 'operator/package.json', 'provider/package.json', 'package-lock.json', 'charts/tollgate/Chart.yaml', 'charts/tollgate-crds/Chart.yaml', 'docs/openapi.json']) {
    assert.ok(files.has(file), `${file} is not among the copies scripts/version.mjs knows`);
  }
  assert.deepEqual(mismatches(), [], `run: node scripts/version.mjs --set ${version}`);
});

test('the server, its OpenAPI document and the provider show the version', () => {
  const r = spawnSync(process.execPath, [join(root, 'server/bin/tollgate.mjs'), 'version'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^tollgate ${version.replaceAll('.', '\\.')} `));
  assert.equal(JSON.parse(readFileSync(join(root, 'docs/openapi.json'), 'utf8')).info.version, version);
  assert.equal(PROVIDER_VERSION, version);
});

test('version.mjs --set rewrites every copy, and nothing but the version strings', () => {
  const copy = mkdtempSync(join(tmpdir(), 'tollgate-version-'));
  try {
    const files: string[] = ['package.json', ...new Set<string>(derivedCopies().map((c: { file: string }) => c.file))];
    for (const f of files) {
      mkdirSync(dirname(join(copy, f)), { recursive: true });
      cpSync(join(root, f), join(copy, f));
    }
    const next = '31.41.59';
    const set = spawnSync(process.execPath, [join(root, 'scripts/version.mjs'), '--root', copy, '--set', next], { encoding: 'utf8' });
    assert.equal(set.status, 0, set.stderr);
    const check = spawnSync(process.execPath, [join(root, 'scripts/version.mjs'), '--root', copy, '--check'], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
    assert.equal(readVersion(copy), next);
    for (const f of files) {
      const after = readFileSync(join(copy, f), 'utf8');
      assert.ok(after.includes(next), `${f} was not rewritten`);
      assert.equal(after.replaceAll(next, version), readFileSync(join(root, f), 'utf8'), `${f}: --set changed more than the version`);
    }
    const bad = spawnSync(process.execPath, [join(root, 'scripts/version.mjs'), '--root', copy, '--set', 'v1'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /not a semantic version/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test('the provider bundle carries the version it is built for, and reads no file beside itself', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-bundle-'));
  try {
    const outFile = join(dir, 'provider.cjs');
    await bundleProvider({ outFile, version: '27.18.28' });
    const text = readFileSync(outFile, 'utf8');
    assert.match(text, /PROVIDER_VERSION = "27\.18\.28"/);
    // provider/src/protocol/services.ts finds the definitions in ./proto/ beside itself; the bundle has them inside.
    assert.doesNotMatch(text, /import\.meta/);
    assert.match(text, /\/\/ provider\/scripts\/bundled-services\.mjs\n/);
    assert.doesNotMatch(text, /\/\/ provider\/src\/protocol\/services\.ts\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
