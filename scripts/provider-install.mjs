#!/usr/bin/env node
// npm run provider:install [-- --dir DIR]: builds the Terraform provider (contract/dist and provider/dist, when
// stale) and installs it as `tollgate/tollgate` into the implied local mirror that Terraform and OpenTofu share
// (~/.terraform.d/plugins/<host>/tollgate/tollgate/<version>/<os>_<arch>/), or into DIR with the same layout (for a
// `filesystem_mirror` block), so that `terraform init` and `tofu init` work offline. It is laid out under both
// registry hosts, because the short source `tollgate/tollgate` means registry.terraform.io/tollgate/tollgate to
// Terraform and registry.opentofu.org/tollgate/tollgate to OpenTofu. The installed file is a small shell script that
// runs this clone's build with this node, so rebuild (run this again) after pulling.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { withLock } from './build-lock.mjs';
import { compiledIsFresh } from '../server/bin/compiled.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const providerDir = join(root, 'provider');
const contractDir = join(root, 'contract');
const stamp = join(providerDir, 'dist', '.build-stamp');
// The root package.json holds the one version of everything the repository ships.
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
/** The registry host each CLI puts in front of a short source address. */
const hosts = ['registry.terraform.io', 'registry.opentofu.org'];

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (!v || v.startsWith('--')) { console.error(`${name} needs a value`); process.exit(2); }
  return v;
}

/**
 * Builds what the provider process loads: contract/dist (with the server build, when stale) and provider/dist.
 * Test files install the provider concurrently, so the build runs under a lock directory (mkdir is atomic) and
 * checks freshness again once it holds it.
 */
function build() {
  withLock(join(providerDir, '.build-lock'), () => {
    const server = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
    if (server.status !== 0) process.exit(server.status ?? 1);
    if (compiledIsFresh([join(providerDir, 'src'), join(contractDir, 'src')], stamp)) return;
    const t0 = Date.now();
    process.stderr.write('building provider/dist ... ');
    rmSync(join(providerDir, 'dist'), { recursive: true, force: true });
    const r = spawnSync(process.execPath, [join(providerDir, 'scripts', 'build.mjs')], { stdio: 'inherit' });
    if (r.status !== 0) { process.stderr.write('failed\n'); process.exit(r.status ?? 1); }
    process.stderr.write(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  });
}

/** Terraform's platform names. */
function platform() {
  const arch = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' }[process.arch] ?? process.arch;
  return `${process.platform}_${arch}`;
}

build();
const mirror = arg('--dir') ?? join(homedir(), '.terraform.d', 'plugins');
const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;
const script = `#!/bin/sh\n# Installed by npm run provider:install from ${root}\nexec ${quote(process.execPath)} ${quote(join(providerDir, 'dist', 'main.js'))} "$@"\n`;
for (const host of hosts) {
  const dir = join(mirror, host, 'tollgate', 'tollgate', version, platform());
  mkdirSync(dir, { recursive: true });
  const bin = join(dir, `terraform-provider-tollgate_v${version}`);
  writeFileSync(bin, script);
  chmodSync(bin, 0o755);
  console.log(`installed ${host}/tollgate/tollgate ${version} (${platform()}) at ${bin}`);
}
