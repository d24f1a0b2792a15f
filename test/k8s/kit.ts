// The Kubernetes side of the operator tests: a real control plane (test/k8s/control-plane.sh: etcd, kube-apiserver,
// kube-controller-manager built from the Go module proxy), the real `kubectl`, and the operator as a child process
// exactly as users run it (node operator/bin/tollgate-operator.mjs with KUBECONFIG).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient, type ApiResult } from '@tollgate/contract';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { freePort } from '@tollgate/testkit/free-port.ts';
import { startTestApp, type TestApp, type TestAppOptions, type TestUser } from '@tollgate/testkit/harness.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = join(root, 'test', 'k8s', 'control-plane.sh');

export interface RunResult { code: number; stdout: string; stderr: string }

export interface Cluster {
  kubeconfig: string;
  kubectl(args: string[], input?: string): Promise<RunResult>;
  /** kubectl that must succeed; returns stdout. */
  ok(args: string[], input?: string): Promise<string>;
  /** `kubectl get -o json` of one object, or undefined when it does not exist. */
  get<T = any>(resource: string, name: string, namespace: string): Promise<T | undefined>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): void;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    p.on('error', (err) => resolve({ code: 127, stdout, stderr: stderr + err.message }));
    p.stdin.end(input ?? '');
  });
}

/** Builds the binaries when the cache lacks them (the first time: many minutes), then starts a control plane. */
export async function startCluster(): Promise<Cluster> {
  const build = spawnSync('bash', [script, 'build'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (build.status !== 0) throw new Error(`test/k8s/control-plane.sh build failed (exit ${build.status})`);
  const dir = join(mkdtempSync(join(tmpdir(), 'tollgate-k8s-')), 'cp');
  const up = spawnSync('bash', [script, 'up', dir], { encoding: 'utf8' });
  if (up.status !== 0) {
    spawnSync('bash', [script, 'down', dir]);
    throw new Error(`test/k8s/control-plane.sh up failed:\n${up.stderr}`);
  }
  const kubeconfig = up.stdout.trim().split('\n').pop()!;
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, KUBECONFIG: kubeconfig };
  const kubectl = (args: string[], input?: string) => run('kubectl', args, env, input);
  const cluster: Cluster = {
    kubeconfig,
    kubectl,
    async ok(args, input) {
      const r = await kubectl(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    async get(resource, name, namespace) {
      const r = await kubectl(['get', resource, name, '-n', namespace, '-o', 'json']);
      if (r.code !== 0) {
        if (/NotFound|not found/.test(r.stderr)) return undefined;
        throw new Error(`kubectl get ${resource} ${name}: ${r.stderr}`);
      }
      return JSON.parse(r.stdout);
    },
    close() { spawnSync('bash', [script, 'down', dir]); },
  };
  return cluster;
}

/** A control plane with Tollgate's CRDs, and a Tollgate (management API and gateway) whose user the objects act for. */
export interface ClusterWithApp {
  cluster: Cluster;
  t: TestApp;
  user: TestUser;
  /** The management API with the user's PAT: what the operator does, seen from outside. */
  api: ApiClient;
  close(): Promise<void>;
}

/** startCluster, the CRDs of crds/ applied and established, then the Tollgate app and one user (with `userTags`). */
export async function startClusterWithApp(o: { app?: TestAppOptions; userTags?: string[]; crds?: boolean } = {}): Promise<ClusterWithApp> {
  const cluster = await startCluster();
  let t: TestApp | undefined;
  try {
    // crds: false leaves them to the test (versions.test.ts applies an older CRD first).
    if (o.crds !== false) await applyCrds(cluster, join(root, 'crds'));
    t = await startTestApp(o.app);
    const user = await t.createUser();
    if (o.userTags) await t.setUserTags(user, o.userTags);
    const app = t;
    return {
      cluster, t, user, api: new ApiClient({ endpoint: t.api, token: user.pat }),
      async close() { await app.close(); cluster.close(); },
    };
  } catch (err) {
    await t?.close();
    cluster.close();
    throw err;
  }
}

/** Applies CRD manifests (a file, a folder, or `-` with `input`) and waits until every CRD is established. */
export async function applyCrds(cluster: Cluster, file: string, input?: string): Promise<void> {
  await cluster.ok(['apply', '-f', file], input);
  await crdsEstablished(cluster);
}

/**
 * Waits until the CRDs named (by `name` or label `selector`; all of them without either) exist and are Established.
 * Not `kubectl wait --for=condition=Established`: it fails at once, instead of waiting, on a CRD the API server has
 * created but not yet given a status ("status.conditions accessor error: <nil>"), which a just-installed chart hits.
 */
export async function crdsEstablished(cluster: Cluster, which: { name?: string; selector?: string } = {}, timeoutMs = 60_000): Promise<void> {
  const args = ['get', 'crd', ...(which.name ? [which.name] : []), ...(which.selector ? ['-l', which.selector] : []), '-o', 'json'];
  let pending = 'no CRD found';
  await eventually(async () => {
    const r = await cluster.kubectl(args);
    if (r.code !== 0) { pending = r.stderr.trim(); return false; }
    const body = JSON.parse(r.stdout) as { kind: string; items?: CrdStatus[] } & CrdStatus;
    const crds = body.kind === 'List' ? body.items ?? [] : [body];
    const notYet = crds.filter((c) => condition(c, 'Established')?.status !== 'True');
    pending = crds.length === 0 ? 'no CRD found' : `not established: ${notYet.map((c) => c.metadata.name).join(', ')}`;
    return crds.length > 0 && notYet.length === 0;
  }, { timeoutMs, intervalMs: 200, what: `CRDs ${which.name ?? which.selector ?? '(all)'} established` }).catch((err: Error) => {
    throw new Error(`${err.message} (${pending})`);
  });
}

interface CrdStatus { metadata: { name: string }; status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } }

/**
 * A kubeconfig that authenticates as a ServiceAccount (a token from the TokenRequest API, as a pod gets), for
 * running the operator on exactly the RBAC a test applied. Written into `dir`; returns its path.
 */
export async function serviceAccountKubeconfig(cluster: Cluster, namespace: string, name: string, dir: string): Promise<string> {
  const token = (await cluster.ok(['create', 'token', name, '-n', namespace, '--duration=1h'])).trim();
  const admin = JSON.parse(await cluster.ok(['config', 'view', '--raw', '--minify', '-o', 'json'])) as {
    clusters: Array<{ cluster: { server: string; 'certificate-authority'?: string; 'certificate-authority-data'?: string } }>;
  };
  const { server, 'certificate-authority': caFile, 'certificate-authority-data': caData } = admin.clusters[0]!.cluster;
  const path = join(dir, `kubeconfig-${namespace}-${name}`);
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'sa',
    clusters: [{ name: 'c', cluster: { server, 'certificate-authority-data': caData ?? readFileSync(caFile!).toString('base64') } }],
    users: [{ name: name, user: { token } }],
    contexts: [{ name: 'sa', context: { cluster: 'c', user: name } }],
  }));
  return path;
}

/** A namespace with the connection Secret (url and token of the management API) the operator reads there. */
export async function connectedNamespace(s: ClusterWithApp, ns: string, url = s.t.api, ...objects: unknown[]): Promise<void> {
  await s.cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tollgate-connection', namespace: ns }, stringData: { url, token: s.user.pat } },
    ...objects,
  ));
}

/** The body of a call that must succeed. */
export function bodyOf<T>(r: ApiResult<T>): T {
  if (!r.ok) throw new Error(`the management API answered ${r.error.status}: ${r.error.message}`);
  return r.body;
}

/** The HTTP status of a call, success or not. */
export const statusOf = (r: ApiResult<unknown>) => (r.ok ? r.status : r.error.status);

export interface OperatorProcess {
  child: ChildProcess;
  port: number;
  identity: string;
  logs(): string;
  metrics(): Promise<string>;
  /** The value of one metric line (labels as written, e.g. `{kind="McpProxy",result="synced"}`), 0 when absent. */
  metric(name: string, labels?: string): Promise<number>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `node operator/bin/tollgate-operator.mjs [args]` and waits for its health endpoint. */
export async function startOperator(cluster: Cluster, env: Record<string, string> = {}, args: string[] = []): Promise<OperatorProcess> {
  const port = await freePort();
  const identity = env.POD_NAME ?? `operator-${port}`;
  const child = spawn(process.execPath, [join(root, 'operator', 'bin', 'tollgate-operator.mjs'), ...args], {
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME, KUBECONFIG: cluster.kubeconfig,
      TOLLGATE_OPERATOR_PORT: String(port), POD_NAME: identity, TOLLGATE_LOG_LEVEL: 'info', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const metrics = async () => (await fetch(`${base}/metrics`)).text();
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the operator exited ${child.exitCode}:\n${out}`);
    return fetch(`${base}/healthz`).then((r) => r.ok, () => false);
  }, { timeoutMs: 30_000, what: 'the operator health endpoint' });
  return {
    child, port, identity, metrics,
    logs: () => out,
    async metric(name, labels = '') {
      const text = await metrics();
      const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
      return line ? Number(line.split(' ').pop()) : 0;
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** A manifest of several objects: a v1 List (kubectl takes JSON, and splits a List into its objects). */
export const manifest = (...objects: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });

export const condition = (obj: { status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } } | undefined, type: string) =>
  obj?.status?.conditions?.find((c) => c.type === type);

type Cond = { status: string; reason: string; message: string };

/**
 * Waits for an object whose Ready condition matches `want` (status and/or reason), for its current generation, and
 * returns it.
 */
export async function readyWhen(cluster: Cluster, ref: { resource: string; name: string; namespace: string }, want: Partial<Pick<Cond, 'status' | 'reason'>>, timeoutMs = 45_000) {
  const { resource, name, namespace } = ref;
  return eventually(async () => {
    const o = await cluster.get(resource, name, namespace);
    const c = condition(o, 'Ready');
    const matches = !!c && (!want.status || c.status === want.status) && (!want.reason || c.reason === want.reason);
    return matches && o.status.observedGeneration === o.metadata.generation ? o : undefined;
  }, { timeoutMs, intervalMs: 200, what: `${resource} ${namespace}/${name} Ready ${JSON.stringify(want)}` });
}

/** The HTTP status of one chat completion through the gateway's path route of an LLM proxy, with a client key. */
export const chatStatus = (gateway: string, proxyId: string, key: string) => fetch(`${gateway}/${proxyId}/v1/chat/completions`, {
  method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
}).then(async (r) => { await r.arrayBuffer(); return r.status; });

/** The plaintext in a key Secret (key `key`), or undefined when the Secret or the key is not there. */
export async function secretKey(cluster: Cluster, name: string, namespace: string): Promise<string | undefined> {
  const s = await cluster.get('secret', name, namespace);
  return s?.data?.key === undefined ? undefined : Buffer.from(s.data.key, 'base64').toString('utf8');
}

export interface LlmOperatorStack extends ClusterWithApp {
  openai: FakeProvider;
  operator: OperatorProcess;
}

/**
 * startClusterWithApp with the app's OpenAI base pointed at a fake provider, and an operator resyncing every 30 s:
 * the setup of the tests that drive LLM proxies and keys through the operator. close() stops all three.
 */
export async function startLlmOperatorStack(): Promise<LlmOperatorStack> {
  const openai = await startFakeProvider('openai');
  let stack: ClusterWithApp | undefined;
  try {
    stack = await startClusterWithApp({ app: { env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: openai.url } } });
    const operator = await startOperator(stack.cluster, { TOLLGATE_OPERATOR_RESYNC_S: '30', TOLLGATE_OPERATOR_LEASE_NAMESPACE: 'default' });
    const app = stack;
    return { ...app, openai, operator, async close() { await operator.stop(); await app.close(); await openai.close(); } };
  } catch (err) {
    await stack?.close();
    await openai.close();
    throw err;
  }
}
