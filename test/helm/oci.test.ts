// Both charts as users get them: packaged by the release (scripts/release.mjs --version), pushed to an OCI registry
// (the CNCF distribution registry of test/helm/oci-registry.sh, plain HTTP on loopback), installed from oci:// onto
// the test API server, then a second version released, pushed, and `helm upgrade`d to from oci://, the CRDs chart
// first. There is no kubelet: the Deployments are checked as objects (their image and labels follow the version).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crdsEstablished, startCluster, type Cluster } from '../k8s/kit.ts';
import { BASE, helm, helmOk, root, setArgs } from './kit.ts';

const NS = 'tollgate';
const registryScript = join(root, 'test', 'helm', 'oci-registry.sh');
const treeVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
/** The tree's version, and the next patch version: a release cut after it. */
const V1 = treeVersion;
const V2 = treeVersion.replace(/^(\d+)\.(\d+)\.(\d+).*$/, (_, a: string, b: string, c: string) => `${a}.${b}.${Number(c) + 1}`);

let cluster: Cluster;
let work: string;
let registryDir: string;
let registry: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tollgate-oci-'));
  const build = spawnSync('bash', [registryScript, 'build'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (build.status !== 0) throw new Error(`bash test/helm/oci-registry.sh build failed (exit ${build.status})`);
  registryDir = join(work, 'registry');
  const up = spawnSync('bash', [registryScript, 'up', registryDir], { encoding: 'utf8' });
  if (up.status !== 0) throw new Error(`bash test/helm/oci-registry.sh up failed:\n${up.stderr}`);
  registry = up.stdout.trim().split('\n').pop()!;
  cluster = await startCluster();
  await cluster.ok(['create', 'namespace', NS]);
  await cluster.ok(['create', 'secret', 'generic', 'tollgate-datastore', '-n', NS,
    '--from-literal=DATABASE_URL=postgres://tollgate@postgres.db:5432/tollgate', '--from-literal=REDIS_URL=redis://redis.db:6379']);
});

after(() => {
  cluster?.close();
  if (registryDir) spawnSync('bash', [registryScript, 'down', registryDir]);
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `node scripts/release.mjs --out DIR --version X`; returns DIR. */
function release(version: string): string {
  const out = join(work, `release-${version}`);
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'release.mjs'), '--out', out, '--version', version], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `scripts/release.mjs --version ${version}:\n${r.stdout}${r.stderr}`);
  return out;
}

/** Pushes both charts of a release after checking them against its SHA256SUMS; returns helm's "Pushed:" lines. */
async function pushCharts(dir: string, version: string): Promise<string[]> {
  const sums = readFileSync(join(dir, 'SHA256SUMS'), 'utf8');
  const pushed: string[] = [];
  for (const name of ['tollgate-crds', 'tollgate']) {
    const tgz = `${name}-${version}.tgz`;
    const sha = createHash('sha256').update(readFileSync(join(dir, tgz))).digest('hex');
    assert.ok(sums.includes(`${sha}  ${tgz}\n`), `${tgz} is listed in SHA256SUMS with its digest`);
    const r = await helm(['push', join(dir, tgz), `oci://${registry}/charts`, '--plain-http']);
    assert.equal(r.code, 0, r.stderr);
    pushed.push(/Pushed: (\S+)/.exec(r.stdout + r.stderr)?.[1] ?? '');
  }
  return pushed;
}

const oci = (name: string) => `oci://${registry}/charts/${name}`;

interface Metadata { name: string; chart: string; version: string; appVersion: string; revision: number; status: string }
const metadata = async (release: string) =>
  JSON.parse(await helmOk(['get', 'metadata', release, '-n', NS, '-o', 'json'], cluster.kubeconfig)) as Metadata;

const masterKey = async () => (await cluster.get('secret', 'tg-tollgate-master-key', NS))?.data?.masterKey as string | undefined;

test(`release ${V1}: both charts pushed to the OCI registry and installed from oci://, the CRDs chart first`, async () => {
  const dir = release(V1);
  assert.deepEqual(await pushCharts(dir, V1), [`${registry}/charts/tollgate-crds:${V1}`, `${registry}/charts/tollgate:${V1}`]);

  const crds = await helm(['install', 'tollgate-crds', oci('tollgate-crds'), '--version', V1, '--plain-http', '-n', NS], cluster.kubeconfig);
  assert.equal(crds.code, 0, crds.stderr);
  await crdsEstablished(cluster, { selector: 'app.kubernetes.io/part-of=tollgate' });
  const app = await helm(['install', 'tg', oci('tollgate'), '--version', V1, '--plain-http', '-n', NS, ...setArgs(BASE)], cluster.kubeconfig);
  assert.equal(app.code, 0, app.stderr);
  assert.doesNotMatch(app.stdout, /CRDs are not installed/);

  for (const [rel, chart] of [['tollgate-crds', 'tollgate-crds'], ['tg', 'tollgate']] as const) {
    const m = await metadata(rel);
    assert.deepEqual([m.chart, m.version, m.appVersion, m.revision, m.status], [chart, V1, V1, 1, 'deployed'], rel);
  }
  const api = await cluster.get('deploy', 'tg-tollgate-api', NS);
  assert.equal(api.spec.template.spec.containers[0].image, `tollgate:${V1}`, 'the image tag defaults to the release\'s appVersion');
  assert.equal(api.metadata.labels['helm.sh/chart'], `tollgate-${V1}`);
  const crd = await cluster.get('crd', 'mcpproxies.tollgate.dev', '');
  assert.equal(crd.metadata.labels['helm.sh/chart'], `tollgate-crds-${V1}`);
});

test(`release ${V2}: pushed beside ${V1}; oci:// without --version is the newest; helm upgrade to it, CRDs first`, async () => {
  const keyBefore = await masterKey();
  assert.ok(keyBefore, 'the generated master key exists');
  const dir = release(V2);
  await pushCharts(dir, V2);
  const latest = await helmOk(['show', 'chart', oci('tollgate'), '--plain-http']);
  assert.match(latest, new RegExp(`^version: ${V2.replace(/\./g, '\\.')}$`, 'm'));

  const crds = await helm(['upgrade', 'tollgate-crds', oci('tollgate-crds'), '--version', V2, '--plain-http', '-n', NS], cluster.kubeconfig);
  assert.equal(crds.code, 0, crds.stderr);
  const app = await helm(['upgrade', 'tg', oci('tollgate'), '--version', V2, '--plain-http', '-n', NS, ...setArgs({ ...BASE, 'api.replicas': 3 })], cluster.kubeconfig);
  assert.equal(app.code, 0, app.stderr);

  for (const [rel, chart] of [['tollgate-crds', 'tollgate-crds'], ['tg', 'tollgate']] as const) {
    const m = await metadata(rel);
    assert.deepEqual([m.chart, m.version, m.appVersion, m.revision, m.status], [chart, V2, V2, 2, 'deployed'], rel);
  }
  const history = JSON.parse(await helmOk(['history', 'tg', '-n', NS, '-o', 'json'], cluster.kubeconfig)) as Array<{ revision: number; chart: string; status: string }>;
  assert.deepEqual(history.map((h) => [h.revision, h.chart, h.status]), [[1, `tollgate-${V1}`, 'superseded'], [2, `tollgate-${V2}`, 'deployed']]);

  for (const name of ['tg-tollgate-api', 'tg-tollgate-gateway', 'tg-tollgate-operator']) {
    const d = await cluster.get('deploy', name, NS);
    assert.equal(d.spec.template.spec.containers[0].image, `tollgate:${V2}`, name);
    assert.equal(d.metadata.labels['app.kubernetes.io/version'], V2, name);
    assert.equal(d.metadata.generation, 2, `${name} was updated in place`);
  }
  assert.equal((await cluster.get('deploy', 'tg-tollgate-api', NS)).spec.replicas, 3);
  const crdLabels = JSON.parse(await cluster.ok(['get', 'crd', '-l', 'app.kubernetes.io/part-of=tollgate', '-o', 'json'])) as { items: Array<{ metadata: { name: string; labels: Record<string, string> } }> };
  assert.deepEqual(crdLabels.items.map((c) => c.metadata.labels['helm.sh/chart']), Array(4).fill(`tollgate-crds-${V2}`));
  assert.equal(await masterKey(), keyBefore, 'the upgrade kept the generated master key');
});
