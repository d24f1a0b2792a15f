// Helpers for running the real terraform against a compiled plugin: build once, install it with dev_overrides in a
// private CLI config, run commands in a scratch directory, and time the plugin's start-up.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPluginIdentity } from '../certificate.ts';
import { magicCookieValue } from '../handshake.ts';

const providerDir = fileURLToPath(new URL('../../../', import.meta.url));

export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, command);
    if (spawnSync('test', ['-x', candidate]).status === 0) return candidate;
  }
  return undefined;
}

export interface Harness {
  /** The compiled plugin entry point. */
  pluginMain: string;
  workDir: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** Compiles the provider (inside the repository, so node_modules resolve) and writes the CLI config. */
export function setUpHarness(providerType: string, mainRelative: string): Harness {
  // Inside the repository, so that node_modules resolve; beside dist/ rather than in it, because provider:install
  // replaces dist/ while other test files may be running this one.
  const buildDir = join(providerDir, '.cache', `e2e-${process.pid}`);
  // Under the build lock that provider:install takes: contract/dist must be fresh (built once, under the lock) and not
  // deleted by another test file's rebuild while this compile reads its declarations.
  const root = join(providerDir, '..');
  const locked = (...argv: string[]) => spawnSync(process.execPath, [join(root, 'scripts', 'build-lock.mjs'), join(providerDir, '.build-lock'), process.execPath, ...argv], { encoding: 'utf8' });
  const contract = locked(join(root, 'scripts', 'build.mjs'), '--if-stale');
  if (contract.status !== 0) throw new Error(`build failed:\n${contract.stdout}${contract.stderr}`);
  const build = locked(join(providerDir, 'scripts/build.mjs'), buildDir);
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  const scratch = mkdtempSync(join(tmpdir(), 'tfproto-'));
  const binDir = join(scratch, 'bin');
  const workDir = join(scratch, 'work');
  mkdirSync(binDir);
  mkdirSync(workDir);
  const pluginMain = join(buildDir, mainRelative);
  const wrapper = join(binDir, `terraform-provider-${providerType}`);
  writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${pluginMain}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  const cliConfig = join(scratch, 'terraform.rc');
  writeFileSync(cliConfig, `provider_installation {\n  dev_overrides {\n    "tollgate/${providerType}" = "${binDir}"\n  }\n  direct {}\n}\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_INPUT: '0' };
  delete env.TF_LOG;
  return { pluginMain, workDir, env, cleanup: () => { rmSync(scratch, { recursive: true, force: true }); rmSync(buildDir, { recursive: true, force: true }); } };
}

export interface Run { status: number | null; stdout: string; stderr: string; ms: number }

export function terraform(harness: Harness, args: string[], cwd = harness.workDir): Run {
  const started = performance.now();
  const r = spawnSync('terraform', [...args, '-no-color'], { cwd, env: harness.env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Math.round(performance.now() - started) };
}

/** Starts the plugin as terraform would and measures the time until its handshake line. */
export async function timeHandshake(pluginMain: string): Promise<{ ms: number; line: string; extraStdout: string }> {
  const env = {
    ...process.env,
    TF_PLUGIN_MAGIC_COOKIE: magicCookieValue,
    PLUGIN_PROTOCOL_VERSIONS: '5,6',
    PLUGIN_CLIENT_CERT: createPluginIdentity().certificatePem,
  };
  const started = performance.now();
  const child = spawn(process.execPath, [pluginMain], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`plugin exited (${code}) before its handshake`)));
    child.once('error', reject);
  });
  const ms = Math.round(performance.now() - started);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return { ms, line, extraStdout: stdout.slice(line.length + 1) };
}
