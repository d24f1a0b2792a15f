// The image's entry points, run as the image and the chart would run them, without a container engine:
//   - the file tree is the Dockerfile's runtime stage laid out from this workspace (image-layout.ts: its COPY lines,
//     .dockerignore, the production packages of `npm ci --omit=dev -w ...` from package-lock.json);
//   - each process is `ENTRYPOINT + args` of the chart's Deployment, in the WORKDIR, as USER 10001 (when this test
//     runs as root; the tree is owned by root and read-only to that user, like the image's read-only root
//     filesystem), with HOME not writable and TMPDIR standing in for the chart's /tmp emptyDir;
//   - the environment is the rendered chart's (helm template): its values, the master key of its generated Secret,
//     DATABASE_URL and REDIS_URL from this environment when set (as CI sets them) or else the embedded datastores
//     in a data dir of their own; only the listen addresses (127.0.0.1 for the chart's 0.0.0.0), the gateway admin URL
//     (a Service name in the cluster) and, for the operator, a kubeconfig (in a pod: the service account) differ.
// The operator runs on the chart's own RBAC: a token of the ServiceAccount that `helm install` created, and carries
// an LlmProxy and an ApiKey (with rotation and deletion) into the API process started here.
// What this does not prove: that `docker build` succeeds (apt-get, npm ci and the re2 compile inside
// node:26-bookworm-slim), the kernel's enforcement of readOnlyRootFilesystem, and the kubelet's probes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { ApiClient } from '@tollgate/contract';
import { newIsolation } from '@tollgate/testkit/harness.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { condition, crdsEstablished, manifest, startCluster, type Cluster } from '../k8s/kit.ts';
import { freePort } from '@tollgate/testkit/free-port.ts';
import { runCommand, type CommandResult } from '@tollgate/testkit/run-command.ts';
import { BASE, chart, crdChart, helmOk, must, renderOffline, root, setArgs, watchProcess, type K8sObject, type Proc } from './kit.ts';
import { layOutImage } from './image-layout.ts';

const WAIT = { timeoutMs: 60_000, intervalMs: 200 };
const NS = 'tollgate';
const asRoot = process.getuid?.() === 0;
const USER = { uid: 10001, gid: 10001 };

let cluster: Cluster;
let image: ReturnType<typeof layOutImage>;
let imageRoot: string;
let ports: { api: number; gateway: number; admin: number; operator: number };
let objs: K8sObject[];
let initialTree: string[];
const procs: Proc[] = [];
const shared = !!process.env.DATABASE_URL && !!process.env.REDIS_URL;

before(async () => {
  // The build stage's outputs (contract/dist, server/dist, operator/dist, dashboard/dist), as `npm run build` leaves them.
  for (const script of ['build.mjs', 'build-dashboard.mjs']) {
    const build = spawnSync(process.execPath, [join(root, 'scripts', script), '--if-stale'], { stdio: 'inherit' });
    assert.equal(build.status, 0, `scripts/${script} failed`);
  }
  imageRoot = mkdtempSync(join(tmpdir(), 'tollgate-image-'));
  image = layOutImage(root, imageRoot);
  mkdirSync(join(imageRoot, 'tmp'));
  if (asRoot) chownSync(join(imageRoot, 'tmp'), USER.uid, USER.gid);
  initialTree = listTree();
  ports = { api: await freePort(), gateway: await freePort(), admin: await freePort(), operator: await freePort() };
  // The operator reaches the API process at 127.0.0.1 here, not at the Service the chart allows by default.
  objs = await renderOffline({
    ...BASE, 'api.port': ports.api, 'gateway.port': ports.gateway, 'gateway.adminPort': ports.admin, 'operator.port': ports.operator,
    'operator.allowedApiUrls': [`http://127.0.0.1:${ports.api}`],
  });
  cluster = await startCluster();
});

after(async () => {
  for (const p of procs.reverse()) await p.stop();
  cluster?.close();
  if (imageRoot) rmSync(imageRoot, { recursive: true, force: true });
});

// ------------------------------------------------------------------------------------------------------------


/** A writable directory for the image's user (the chart's emptyDir or volume). */
function writableDir(name: string): string {
  const dir = join(imageRoot, name);
  mkdirSync(dir, { recursive: true });
  if (asRoot) chownSync(dir, USER.uid, USER.gid);
  return dir;
}

/** The environment the image gives every process (ENV lines, PATH, HOME of a user without a passwd entry). */
function imageEnv(): Record<string, string> {
  return {
    PATH: [join(imageRoot, 'usr', 'local', 'bin'), dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: imageRoot, // Docker's HOME for a uid without a passwd entry is /: not writable, like this one
    TMPDIR: join(imageRoot, 'tmp'),
    NODE_ENV: 'production',
  };
}

/** A Deployment's container env as the kubelet would set it, with the Secrets and fields this test supplies. */
function podEnv(deploy: K8sObject, overrides: Record<string, string>): Record<string, string> {
  const key = must(objs, 'Secret', 'tg-tollgate-master-key').data.masterKey as string;
  const secrets: Record<string, string | undefined> = {
    'tollgate-datastore/DATABASE_URL': process.env.DATABASE_URL,
    'tollgate-datastore/REDIS_URL': process.env.REDIS_URL,
    'tg-tollgate-master-key/masterKey': Buffer.from(key, 'base64').toString('utf8'),
  };
  const fields: Record<string, string> = { 'metadata.name': `${deploy.metadata.name}-7d9f-abcde`, 'metadata.namespace': NS };
  const env: Record<string, string> = {};
  for (const e of deploy.spec.template.spec.containers[0].env as Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } }>) {
    const ref = e.valueFrom?.secretKeyRef;
    const v = e.value ?? (ref ? secrets[`${ref.name}/${ref.key}`] : fields[e.valueFrom?.fieldRef?.fieldPath ?? '']);
    if (v !== undefined) env[e.name] = v;
  }
  return { ...imageEnv(), ...env, ...overrides };
}

/** Without PostgreSQL and Redis each server process gets embedded datastores in a data dir of its own. */
function datastoreOverrides(name: string): Record<string, string> {
  if (shared) {
    const iso = newIsolation();
    return { TOLLGATE_DB_SCHEMA: iso.schema, TOLLGATE_REDIS_PREFIX: iso.redisPrefix };
  }
  return { TOLLGATE_DATA_DIR: writableDir(`data-${name}`) };
}

/** Runs `ENTRYPOINT + args` in the WORKDIR as the image's user. */
function run(name: string, args: string[], env: Record<string, string>): Proc {
  const [cmd, ...entry] = image.entrypoint;
  const proc = watchProcess(name, spawn(cmd!, [...entry, ...args], { cwd: image.appDir, env, stdio: ['ignore', 'pipe', 'pipe'], ...(asRoot ? USER : {}) }));
  procs.push(proc);
  return proc;
}

/** Runs a one-shot command (the admin CLI) as `kubectl exec ... -- tollgate ...` would: PATH's `tollgate`. */
function exec(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return runCommand('tollgate', args, { cwd: image.appDir, env, ...(asRoot ? USER : {}) });
}

async function answers(url: string, proc: Proc, init?: RequestInit): Promise<Response> {
  return eventually(async () => {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited ${proc.child.exitCode}:\n${proc.logs()}`);
    return fetch(url, init).catch(() => undefined);
  }, { ...WAIT, what: `${proc.name} answering ${url}` });
}

/** GET with a Host header of our choosing (fetch sets Host from the URL). */
function getWithHost(port: number, path: string, host: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => { text += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    }).on('error', reject).end();
  });
}

/** The image's files, but for the writable dirs this test adds (tmp, data-*) and the operator's kubeconfig. */
function listTree(dir = imageRoot, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (dir === imageRoot && /^(tmp|data-.*|kube)$/.test(name)) continue;
    out.push(p);
    if (lstatSync(p).isDirectory()) listTree(p, out);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------------------

let gatewayProc: Proc;
let apiProc: Proc;
let apiEnv: Record<string, string>;
let pat: string;
const local = (port: number) => `http://127.0.0.1:${port}`;

test('the image runs the compiled build (no sources ship, so server/dist and operator/dist count as fresh)', async (t) => {
  t.diagnostic(`image tree: ${image.files} files; user ${asRoot ? '10001:10001' : `${process.getuid?.()} (not root: cannot switch users)`}`);
  assert.equal(image.user, '10001:10001', 'USER is numeric, so runAsNonRoot can check it');
  assert.deepEqual(image.entrypoint, ['node', 'server/bin/tollgate.mjs']);
  assert.deepEqual(image.cmd, ['serve']);
  const r = await exec(['version'], imageEnv());
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^tollgate 0\.1\.0 \(compiled build in server\/dist, node v20\./);
  // Both ways the chart could start the operator: `tollgate operator` (its Deployment) and the operator's own bin.
  for (const args of [[...image.entrypoint.slice(1), 'operator', '--version'], ['operator/bin/tollgate-operator.mjs', '--version']]) {
    const op = spawnSync(image.entrypoint[0]!, args, { cwd: image.appDir, env: imageEnv(), encoding: 'utf8', ...(asRoot ? USER : {}) });
    assert.equal(op.status, 0, op.stderr);
    assert.match(op.stdout, /^tollgate-operator 0\.1\.0 \(compiled build in operator\/dist, node v20\./, args.join(' '));
  }
});

test('the image holds no TypeScript source and no development loader (tsx, esbuild)', () => {
  const files = listTree().filter((p) => p.startsWith(`${image.appDir}/`)).map((p) => p.slice(image.appDir.length + 1));
  assert.ok(files.includes('operator/dist/main.js') && files.includes('server/dist/cli/main.js'), 'the layout holds the builds');
  assert.deepEqual(files.filter((f) => /^(contract|server|operator)\/src(\/|$)/.test(f)), []);
  assert.deepEqual(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.includes('node_modules/')), []);
  assert.deepEqual(files.filter((f) => /(^|\/)node_modules\/(tsx|esbuild|@esbuild)$/.test(f)), []);
  assert.deepEqual(files.filter((f) => /^(contract|server|operator)\/dist\/testing(\/|$)/.test(f)), [], 'the test kit is not built into dist');
});

test('serve --role gateway answers its admin status and serves only its own host names', async () => {
  const deploy = must(objs, 'Deployment', 'tg-tollgate-gateway');
  gatewayProc = run('gateway', deploy.spec.template.spec.containers[0].args, podEnv(deploy, { TOLLGATE_HOST: '127.0.0.1', ...datastoreOverrides('gateway') }));
  const status = await answers(`${local(ports.admin)}/status`, gatewayProc);
  assert.equal(status.status, 200);
  assert.equal((await status.json()).status, 'up');
  // TOLLGATE_GATEWAY_PUBLIC_HOSTS from the chart: the Service's in-cluster names are served, another name is not.
  const viaService = await getWithHost(ports.gateway, '/nope/', `tg-tollgate-gateway.${NS}.svc.cluster.local:8081`);
  assert.deepEqual(viaService, { status: 404, body: { error: 'Proxy not found' } });
  const rebinding = await getWithHost(ports.gateway, '/nope/', 'evil.example');
  assert.equal(rebinding.status, 403);
});

test('serve --role api answers GET /api/health; the admin CLI of NOTES.txt issues a PAT that it accepts', async () => {
  const deploy = must(objs, 'Deployment', 'tg-tollgate-api');
  apiEnv = podEnv(deploy, { TOLLGATE_HOST: '127.0.0.1', TOLLGATE_GATEWAY_ADMIN_URL: local(ports.admin), ...datastoreOverrides('api') });
  apiProc = run('api', deploy.spec.template.spec.containers[0].args, apiEnv);
  // eslint-disable-next-line no-restricted-syntax -- waits for the process to answer at all, and checks the raw 401
  const anonymous = await answers(`${local(ports.api)}/api/health`, apiProc);
  assert.equal(anonymous.status, 401);
  assert.deepEqual(await anonymous.json(), { error: 'Not authenticated' });

  // kubectl exec deploy/tg-tollgate-api -- tollgate admin user create / token issue: the pod's env, the image's PATH.
  const email = `ops-${Date.now()}@example.com`;
  const created = await exec(['admin', 'user', 'create', '--email', email, '--name', 'Ops'], apiEnv);
  assert.equal(created.status, 0, created.stderr);
  const issued = await exec(['admin', 'token', 'issue', '--email', email], apiEnv);
  assert.equal(issued.status, 0, issued.stderr);
  pat = issued.stdout.trim();
  assert.match(pat, /^svc_pat_/);

  // The dashboard ships in the image and the API serves it at /.
  const dashboard = await fetch(`${local(ports.api)}/`);
  assert.equal(dashboard.status, 200);
  assert.match(await dashboard.text(), /<div id="app">/);
  assert.match(dashboard.headers.get('content-security-policy') ?? '', /script-src 'self'/);

  const health = await new ApiClient({ endpoint: local(ports.api), token: pat }).call('GET /api/health');
  assert.ok(health.ok, JSON.stringify(health));
  const body = health.body;
  assert.equal(body.overall, 'operational', JSON.stringify(body));
  assert.deepEqual(body.services.map((s) => s.name).sort(), ['database', 'gateway', shared ? 'redis' : 'state']);
});

let operatorProc: Proc;

test('the operator, on the chart\'s ServiceAccount and RBAC, answers /healthz and /readyz and holds the Lease', async () => {
  await helmOk(['install', 'tollgate-crds', crdChart, '--namespace', NS, '--create-namespace'], cluster.kubeconfig);
  await crdsEstablished(cluster, { selector: 'app.kubernetes.io/part-of=tollgate' });
  await helmOk(['install', 'tg', chart, '--namespace', NS, ...setArgs({ ...BASE, 'operator.port': ports.operator })], cluster.kubeconfig);
  const token = (await cluster.ok(['create', 'token', 'tg-tollgate-operator', '-n', NS, '--duration=1h'])).trim();
  // In a pod the operator reads the service account's token; here a kubeconfig carries the same token.
  const admin = parse(readFileSync(cluster.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: { server: string; 'certificate-authority': string } }> };
  const { server, 'certificate-authority': caFile } = admin.clusters[0]!.cluster;
  const kubeDir = join(imageRoot, 'kube');
  mkdirSync(kubeDir);
  const kubeconfig = join(kubeDir, 'config');
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'pod',
    clusters: [{ name: 'in-cluster', cluster: { server, 'certificate-authority-data': readFileSync(caFile).toString('base64') } }],
    users: [{ name: 'operator', user: { token } }],
    contexts: [{ name: 'pod', context: { cluster: 'in-cluster', user: 'operator' } }],
  }));
  chmodSync(kubeconfig, 0o644);

  const deploy = must(objs, 'Deployment', 'tg-tollgate-operator');
  const env = podEnv(deploy, { TOLLGATE_OPERATOR_HOST: '127.0.0.1', KUBECONFIG: kubeconfig, TOLLGATE_OPERATOR_RESYNC_S: '5' });
  operatorProc = run('operator', deploy.spec.template.spec.containers[0].args, env);
  assert.equal((await answers(`${local(ports.operator)}/healthz`, operatorProc)).status, 200);
  await eventually(async () => (await fetch(`${local(ports.operator)}/readyz`)).status === 200, { ...WAIT, what: 'the operator ready (leading, caches synced)' });
  const lease = await cluster.get('lease', 'tollgate-operator', NS);
  assert.equal(lease.spec.holderIdentity, env.POD_NAME);
});

test('the operator reconciles through the API process: an LlmProxy and an ApiKey Ready, the key rotated, both deleted', async () => {
  const ns = 'apps';
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tollgate-connection', namespace: ns }, stringData: { url: local(ports.api), token: pat } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'provider', namespace: ns }, stringData: { key: 'sk-test-provider-key' } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'p', namespace: ns }, spec: { provider: 'openai', providerKeySecretRef: { name: 'provider', key: 'key' } } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'ApiKey', metadata: { name: 'k', namespace: ns }, spec: { llmPermissions: [{ proxyRef: { name: 'p' }, models: ['*'] }] } },
  ));
  const ready = (resource: string, name: string) => eventually(async () => {
    const o = await cluster.get(resource, name, ns);
    return condition(o, 'Ready')?.status === 'True' && o.status.observedGeneration === o.metadata.generation ? o : undefined;
  }, { ...WAIT, what: `${resource} ${name} Ready` });
  const p = await ready('llmproxy', 'p');
  await ready('apikey', 'k');
  const api = new ApiClient({ endpoint: local(ports.api), token: pat });
  const remote = await api.call('GET /api/llm/:id', { params: { id: p.status.id } });
  assert.ok(remote.ok, `the proxy exists in the API the operator was pointed at: ${JSON.stringify(remote)}`);
  const keyOf = async () => Buffer.from((await cluster.get('secret', 'k', ns)).data.key, 'base64').toString('utf8');
  const first = await keyOf();

  await cluster.ok(['annotate', 'apikey', 'k', '-n', ns, 'tollgate.dev/rotate=1', '--overwrite']);
  await eventually(async () => (await keyOf()) !== first, { ...WAIT, what: 'the key Secret replaced with a rotated key' });

  await cluster.ok(['delete', 'apikey,llmproxy', '--all', '-n', ns, '--wait=true', '--timeout=60s']);
  await eventually(async () => !(await cluster.get('secret', 'tollgate-connection', ns))?.metadata.finalizers?.length, { ...WAIT, what: 'the connection Secret released' });
  const gone = await api.call('GET /api/llm/:id', { params: { id: p.status.id } });
  assert.equal(gone.ok ? gone.status : gone.error.status, 404, 'the finalizer deleted the remote proxy');
  assert.doesNotMatch(operatorProc.logs(), /forbidden|\b403\b/i, 'no request was refused to the chart\'s RBAC');
});

test('SIGTERM stops every process with exit code 0, and nothing was written outside the data dirs and /tmp', async (t) => {
  // For the chart's resource defaults: each process's resident memory after the work above.
  const rss = (p: Proc) => /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.child.pid}/status`, 'utf8'))?.[1];
  t.diagnostic(`RSS (kB): ${[operatorProc, apiProc, gatewayProc].map((p) => `${p.name} ${rss(p)}`).join(', ')}; /tmp: ${readdirSync(join(imageRoot, 'tmp')).join(', ') || 'empty'}`);
  for (const p of [operatorProc, apiProc, gatewayProc]) {
    assert.equal(await p.stop(), 0, `${p.name}:\n${p.logs().slice(-2000)}`);
  }
  assert.deepEqual(listTree(), initialTree);
});
