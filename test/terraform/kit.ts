// Runs the real `terraform` or `tofu` against the provider installed the way users install it (npm run
// provider:install --dir, then a filesystem_mirror in a CLI config of our own, so `init` works offline), in a
// temporary working directory, with the Tollgate endpoint and token in the environment. Every end-to-end test runs
// under both CLIs (`forEachCli`): terraform comes from the PATH, tofu is built from the Go module proxy on first use
// (test/terraform/opentofu.sh).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findOnPath } from '../../provider/src/protocol/testing/terraform-harness.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const opentofuScript = join(root, 'test', 'terraform', 'opentofu.sh');

/** The version every install and release of the provider carries (the root package.json). */
export const providerVersion: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;

export type CliName = 'terraform' | 'tofu';
export const CLI_NAMES: readonly CliName[] = ['terraform', 'tofu'];

export interface Cli {
  name: CliName;
  /** The executable to spawn. */
  path: string;
  /** How the CLI calls itself in its output ("Terraform has been successfully initialized!"). */
  product: 'Terraform' | 'OpenTofu';
}

/**
 * Why a CLI's tests are skipped, or false. Only a missing terraform skips (the machine provides it); tofu is built
 * on first use, and a failed build fails the test with the command to run.
 */
export function cliSkip(name: CliName): string | false {
  if (name === 'terraform') return findOnPath('terraform') ? false : 'terraform is not on the PATH';
  return false;
}

let tofu: Promise<string> | undefined;

/** Builds tofu unless the cache holds this version (a cold build takes minutes); resolves to its path. */
function buildTofu(): Promise<string> {
  tofu ??= new Promise((resolve, reject) => {
    // Asynchronous, so that a cold build does not stop the other CLI's tests in the same file.
    const p = spawn('bash', [opentofuScript, 'build'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    p.on('error', reject);
    p.on('close', (code) => {
      if (code === 0) resolve(join(out.trim().split('\n').pop()!, 'tofu'));
      else reject(new Error(`building tofu failed (exit ${code}); run: bash test/terraform/opentofu.sh build`));
    });
  });
  return tofu;
}

export async function findCli(name: CliName): Promise<Cli> {
  if (name === 'terraform') return { name, path: 'terraform', product: 'Terraform' };
  return { name, path: await buildTofu(), product: 'OpenTofu' };
}

export interface TfResult { code: number; stdout: string; stderr: string; ms: number }

export interface Terraform {
  cli: Cli;
  dir: string;
  env: Record<string, string>;
  write(files: Record<string, string>): void;
  run(...args: string[]): Promise<TfResult>;
  /** Runs and fails with the CLI's output unless it exits 0. */
  ok(...args: string[]): Promise<TfResult>;
  /** `terraform output -json` as an object of values. */
  outputs(): Promise<Record<string, unknown>>;
  state(address: string): Promise<Record<string, unknown>>;
  close(): void;
}

/** Installs the provider into a mirror under a fresh temporary directory (built on first use). */
export function installProvider(): { home: string; mirror: string; cliConfig: string } {
  const home = mkdtempSync(join(tmpdir(), 'tollgate-tf-'));
  const mirror = join(home, 'mirror');
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'provider-install.mjs'), '--dir', mirror], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`provider:install failed: ${r.stderr}${r.stdout}`);
  const cliConfig = join(home, 'terraformrc');
  // Both hosts: terraform reads `tollgate/tollgate` as registry.terraform.io/..., tofu as registry.opentofu.org/...
  const sources = JSON.stringify(['registry.terraform.io/tollgate/tollgate', 'registry.opentofu.org/tollgate/tollgate']);
  writeFileSync(cliConfig, `provider_installation {
  filesystem_mirror {
    path    = ${JSON.stringify(mirror)}
    include = ${sources}
  }
  direct {
    exclude = ${sources}
  }
}
`);
  return { home, mirror, cliConfig };
}

/** A working directory for one CLI; `cli` comes from `findCli`. */
export function terraform(cli: Cli, cliConfig: string, env: Record<string, string>): Terraform {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-tf-work-'));
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir,
    TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_INPUT: '0', NO_COLOR: '1',
    ...env,
  };
  const run = (...args: string[]) => new Promise<TfResult>((resolve) => {
    const t0 = Date.now();
    const p = spawn(cli.path, [...args.slice(0, 1), ...(['plan', 'apply', 'destroy', 'import', 'init', 'refresh', 'output', 'validate'].includes(args[0] ?? '') ? ['-no-color'] : []), ...args.slice(1)], { cwd: dir, env: fullEnv });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr, ms: Date.now() - t0 }));
    // A CLI that cannot start is a failed command with the reason, not an error that stops the test process.
    p.on('error', (err) => resolve({ code: 127, stdout, stderr: `${stderr}${err.message}`, ms: Date.now() - t0 }));
  });
  const self: Terraform = {
    cli, dir, env: fullEnv, run,
    write(files) { for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text); },
    async ok(...args) {
      const r = await run(...args);
      if (r.code !== 0) throw new Error(`${cli.name} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
      return r;
    },
    async outputs() {
      const r = await self.ok('output', '-json');
      const raw = JSON.parse(r.stdout) as Record<string, { value: unknown }>;
      return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, v.value]));
    },
    async state(address) {
      const r = await self.ok('show', '-json');
      const doc = JSON.parse(r.stdout) as { values?: { root_module?: { resources?: Array<{ address: string; values: Record<string, unknown> }> } } };
      const found = doc.values?.root_module?.resources?.find((x) => x.address === address);
      if (!found) throw new Error(`${address} is not in the state`);
      return found.values;
    },
    close() { rmSync(dir, { recursive: true, force: true }); },
  };
  return self;
}
