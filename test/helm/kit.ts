// The chart tests' tools: the real `helm` (v3, built from the Go module proxy by test/k8s/control-plane.sh into the
// same cache as the test control plane), the charts' paths, and renderings parsed into objects.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { RunResult } from '../k8s/kit.ts';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const chart = join(root, 'charts', 'tollgate');
export const crdChart = join(root, 'charts', 'tollgate-crds');
/** The version of the test control plane; `helm template` without a cluster needs it (see renderOffline). */
export const KUBE_VERSION = '1.34.2';

let binDir: string | undefined;
/** The directory of the control plane's binaries (builds them the first time: many minutes; then instant). */
export function bin(): string {
  if (binDir) return binDir;
  const r = spawnSync('bash', [join(root, 'test', 'k8s', 'control-plane.sh'), 'build'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`test/k8s/control-plane.sh build failed (exit ${r.status})`);
  binDir = r.stdout.trim().split('\n').pop()!;
  return binDir;
}

// helm keeps its repository cache and config under these; a temp dir keeps the tests off $HOME.
const helmHome = mkdtempSync(join(tmpdir(), 'tollgate-helm-'));
process.on('exit', () => rmSync(helmHome, { recursive: true, force: true }));

/** Runs helm; with a kubeconfig it talks to that cluster. */
export function helm(args: string[], kubeconfig?: string): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: helmHome,
    HELM_CACHE_HOME: join(helmHome, 'cache'), HELM_CONFIG_HOME: join(helmHome, 'config'), HELM_DATA_HOME: join(helmHome, 'data'),
    ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
  };
  return new Promise((resolve) => {
    const p = spawn(join(bin(), 'helm'), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** helm that must succeed; returns stdout. */
export async function helmOk(args: string[], kubeconfig?: string): Promise<string> {
  const r = await helm(args, kubeconfig);
  if (r.code !== 0) throw new Error(`helm ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** `--set`-style values as helm arguments (`--set-json` so that numbers and lists keep their types). */
export function setArgs(values: Record<string, unknown>): string[] {
  return Object.entries(values).flatMap(([k, v]) => ['--set-json', `${k}=${JSON.stringify(v)}`]);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered Kubernetes objects, inspected field by field
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; [k: string]: any };

export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text).map((d) => d.toJS() as K8sObject | null).filter((o): o is K8sObject => !!o);
}

/**
 * `helm template` without a cluster. Our helm is built without the client-go version stamp, so it assumes
 * Kubernetes 1.20 (a released helm assumes its client-go's); --kube-version gives it the test cluster's.
 */
export async function renderOffline(values: Record<string, unknown>, opts: { release?: string; namespace?: string; chartDir?: string } = {}): Promise<K8sObject[]> {
  const out = await helmOk(['template', opts.release ?? 'tg', opts.chartDir ?? chart, '--namespace', opts.namespace ?? 'tollgate', '--kube-version', KUBE_VERSION, ...setArgs(values)]);
  return parseManifests(out);
}

export const find = (objs: K8sObject[], kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name);

export function must(objs: K8sObject[], kind: string, name: string): K8sObject {
  const o = find(objs, kind, name);
  if (!o) throw new Error(`no ${kind} ${name} in the rendering; it has: ${objs.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return o;
}

/** The env of a Deployment's first container as name -> value (or `secret:<name>/<key>`, `field:<path>`). */
export function envOf(deploy: K8sObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of deploy.spec.template.spec.containers[0].env ?? []) {
    if (e.value !== undefined) out[e.name] = String(e.value);
    else if (e.valueFrom?.secretKeyRef) out[e.name] = `secret:${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`;
    else if (e.valueFrom?.fieldRef) out[e.name] = `field:${e.valueFrom.fieldRef.fieldPath}`;
  }
  return out;
}

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } };

/**
 * A Deployment's first container env as the kubelet sets it: plain values, each secretKeyRef through `secret` (the
 * decoded value, or undefined to leave the variable out) and each fieldRef from `fields`.
 */
export function containerEnv(deploy: K8sObject, secret: (name: string, key: string) => string | undefined, fields: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of (deploy.spec.template.spec.containers[0].env ?? []) as EnvVar[]) {
    const ref = e.valueFrom?.secretKeyRef;
    const v = e.value ?? (ref ? secret(ref.name, ref.key) : fields[e.valueFrom?.fieldRef?.fieldPath ?? '']);
    if (v !== undefined) env[e.name] = v;
  }
  return env;
}

/** The values every rendering of the production shape needs: the Secret with the datastore URLs. */
export const BASE = { 'datastore.existingSecret': 'tollgate-datastore' };

/** The value sets chart.test.ts renders and install.test.ts applies: the defaults plus what each one changes. */
export const VALUE_SETS: Record<string, Record<string, unknown>> = {
  default: BASE,
  'existing secrets, ingress with TLS': {
    'datastore.existingSecret': 'tollgate-secrets', 'datastore.databaseUrlKey': 'pg-url', 'datastore.redisUrlKey': 'redis-url',
    'masterKey.existingSecret': 'tollgate-secrets', 'masterKey.existingSecretKey': 'master-key',
    proxyDomain: 'proxy.example.com',
    extraEnv: [{ name: 'TOLLGATE_AUDIT_RETENTION_DAYS', value: '90' }],
    'gateway.publicHosts': ['*.ai.example.com'],
    'ingress.enabled': true, 'ingress.className': 'nginx', 'ingress.apiHost': 'api.example.com', 'ingress.gatewayHosts': ['gateway.example.com'],
    'ingress.tls': [{ secretName: 'tollgate-tls', hosts: ['api.example.com', '*.proxy.example.com', 'gateway.example.com'] }],
  },
  'embedded trial': { 'embedded.enabled': true },
  'namespace-scoped operator, no HPA, no PDB': {
    ...BASE, 'operator.watchNamespace': 'apps', 'gateway.autoscaling.enabled': false, 'gateway.replicas': 3, 'gateway.podDisruptionBudget.enabled': false,
  },
  'without the operator': { ...BASE, 'operator.enabled': false },
};

/** A process a chart test runs from a rendered workload: its output (stdout and stderr interleaved) and its exit. */
export interface Proc { name: string; child: ChildProcess; logs(): string; exited: Promise<number | null>; stop(): Promise<number | null> }

/** Collects a child's output and exit; `stop` sends SIGTERM (once, if it still runs) and resolves with the exit code. */
export function watchProcess(name: string, child: ChildProcess): Proc {
  let out = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    name, child, exited, logs: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
