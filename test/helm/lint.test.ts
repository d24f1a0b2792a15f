// `helm lint --strict` of both charts with every value file of their ci/ folders (the chart-testing layout: one file
// per shape the chart supports), and each of those files rendered: lint only logs a template's `fail`, so a value
// set the chart refuses would pass lint; `helm template` is what refuses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chart, crdChart, helm, KUBE_VERSION } from './kit.ts';

const ciFiles = (dir: string) => readdirSync(join(dir, 'ci')).filter((f) => f.endsWith('.yaml')).sort();

test('the ci/ folders hold a value file for every shape: defaults, embedded, external datastores, no operator, GitOps', () => {
  assert.deepEqual(ciFiles(chart), [
    'default-values.yaml', 'embedded-values.yaml', 'external-datastores-values.yaml', 'gitops-values.yaml', 'no-operator-values.yaml',
  ]);
  assert.deepEqual(ciFiles(crdChart), ['default-values.yaml', 'no-keep-values.yaml']);
});

for (const [name, dir] of [['tollgate', chart], ['tollgate-crds', crdChart]] as const) {
  for (const file of ciFiles(dir)) {
    test(`${name}: helm lint --strict and helm template with ci/${file}`, async () => {
      const values = join(dir, 'ci', file);
      const lint = await helm(['lint', dir, '--strict', '--kube-version', KUBE_VERSION, '-f', values]);
      assert.equal(lint.code, 0, lint.stdout + lint.stderr);
      assert.match(lint.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
      const rendered = await helm(['template', 'tg', dir, '--namespace', 'tollgate', '--kube-version', KUBE_VERSION, '-f', values]);
      assert.equal(rendered.code, 0, rendered.stderr);
      assert.match(rendered.stdout, /^kind: (Deployment|CustomResourceDefinition)$/m);
    });
  }
}

test('helm lint --strict fails a value file the schema refuses, naming the value', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-lint-'));
  try {
    const bad = join(dir, 'bad-values.yaml');
    writeFileSync(bad, 'datastore:\n  existingSecret: tollgate-datastore\nclusterLookups: "no"\n');
    const r = await helm(['lint', chart, '--strict', '--kube-version', KUBE_VERSION, '-f', bad]);
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /clusterLookups/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
