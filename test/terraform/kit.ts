// Runs the real `terraform` against the provider installed the way users install it (npm run provider:install
// --dir, then a filesystem_mirror in a CLI config of our own, so `terraform init` works offline), in a temporary
// working directory, with the Tollgate endpoint and token in the environment.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findOnPath } from '../../provider/src/protocol/testing/terraform-harness.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

export function terraformAvailable(): boolean {
  return findOnPath('terraform') !== undefined;
}

export interface TfResult { code: number; stdout: string; stderr: string; ms: number }

export interface Terraform {
  dir: string;
  env: Record<string, string>;
  write(files: Record<string, string>): void;
  run(...args: string[]): Promise<TfResult>;
  /** Runs and fails with terraform's output unless it exits 0. */
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
  writeFileSync(cliConfig, `provider_installation {
  filesystem_mirror {
    path    = ${JSON.stringify(mirror)}
    include = ["registry.terraform.io/tollgate/tollgate"]
  }
  direct {
    exclude = ["registry.terraform.io/tollgate/tollgate"]
  }
}
`);
  return { home, mirror, cliConfig };
}

export function terraform(cliConfig: string, env: Record<string, string>): Terraform {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-tf-work-'));
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir,
    TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_INPUT: '0', NO_COLOR: '1',
    ...env,
  };
  const run = (...args: string[]) => new Promise<TfResult>((resolve) => {
    const t0 = Date.now();
    const p = spawn('terraform', [...args.slice(0, 1), ...(['plan', 'apply', 'destroy', 'import', 'init', 'refresh', 'output', 'validate'].includes(args[0] ?? '') ? ['-no-color'] : []), ...args.slice(1)], { cwd: dir, env: fullEnv });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr, ms: Date.now() - t0 }));
    // A terraform that cannot start is a failed command with the reason, not an error that stops the test process.
    p.on('error', (err) => resolve({ code: 127, stdout, stderr: `${stderr}${err.message}`, ms: Date.now() - t0 }));
  });
  const self: Terraform = {
    dir, env: fullEnv, run,
    write(files) { for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text); },
    async ok(...args) {
      const r = await run(...args);
      if (r.code !== 0) throw new Error(`terraform ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
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
