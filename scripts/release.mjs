#!/usr/bin/env node
// npm run release [-- --out DIR] [-- --version X.Y.Z]: builds every artefact of one version into DIR (default
// dist/release): the Terraform provider as single executables zipped in the registry's layout, with SHA256SUMS, its
// detached GPG signature, the registry manifest and the public key; both Helm charts packaged; the OpenAPI document;
// the changelog; and a SHA256SUMS over all of it. docs/release.md describes the layout and how to cut a release.
// --version builds another version than the tree's without editing the tree (the tests build a second version so).
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { isVersion, mismatches, readVersion } from './version.mjs';
import { bundleProvider } from '../provider/scripts/bundle.mjs';
import { NODE_ARCH, nodeBinary } from './release/node-binary.mjs';
import { buildExecutable } from './release/sea.mjs';
import { writeZip } from './release/zip.mjs';
import { openSigningKey } from './release/sign.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The platforms the provider is released for, in Terraform's names. */
export const PLATFORMS = ['linux_amd64', 'linux_arm64'];
const PROVIDER = 'terraform-provider-tollgate';
const CHARTS = ['tollgate', 'tollgate-crds'];

function arg(argv, name) {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (!v || v.startsWith('--')) throw new Error(`${name} needs a value`);
  return v;
}

/** The file names a release of `version` holds (the tests and docs/release.md list the same). */
export function releaseFiles(version) {
  return [
    ...PLATFORMS.map((p) => `${PROVIDER}_${version}_${p}.zip`),
    `${PROVIDER}_${version}_manifest.json`,
    `${PROVIDER}_${version}_SHA256SUMS`,
    `${PROVIDER}_${version}_SHA256SUMS.sig`,
    'signing-key.asc',
    ...CHARTS.map((c) => `${c}-${version}.tgz`),
    'openapi.json',
    'CHANGELOG.md',
    'SHA256SUMS',
  ].sort();
}

function sha256File(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** sha256sum's format: "<hex>  <name>", one line per file, sorted by name. */
function writeSums(dir, names, out) {
  writeFileSync(join(dir, out), [...names].sort().map((n) => `${sha256File(join(dir, n))}  ${n}\n`).join(''));
}

function helmBinary() {
  const candidates = [
    process.env.TOLLGATE_HELM,
    join(process.env.TOLLGATE_K8S_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'tollgate', 'k8s-testenv'), 'bin', 'helm'),
  ].filter(Boolean);
  const found = candidates.find((c) => existsSync(c));
  if (found) return found;
  if (spawnSync('helm', ['version', '--short']).status === 0) return 'helm';
  throw new Error('helm not found: build it with `bash test/k8s/control-plane.sh build` (or set TOLLGATE_HELM)');
}

function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', cwd: root, ...options });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.stdout;
}

/**
 * The output folder must be new, empty or an earlier release (it holds SHA256SUMS): it is replaced whole, and the
 * release is assembled beside it first, so a reader never sees half of one.
 */
function checkOutDir(out) {
  if (!existsSync(out)) return;
  const names = readdirSync(out);
  if (names.length && !names.includes('SHA256SUMS')) throw new Error(`${out} is neither empty nor an earlier release (no SHA256SUMS): not replacing it`);
}

export async function release({ version, out, log = console.log }) {
  checkOutDir(out);
  mkdirSync(dirname(out), { recursive: true });
  const stage = mkdtempSync(join(dirname(out), `.${basename(out)}.partial-`));
  const work = mkdtempSync(join(tmpdir(), 'tollgate-release-'));
  const steps = 7;
  let n = 0;
  const step = async (title, fn) => {
    const t0 = performance.now();
    log(`[${++n}/${steps}] ${title}`);
    const detail = await fn();
    log(`      done in ${((performance.now() - t0) / 1000).toFixed(1)} s${detail ? `: ${detail}` : ''}`);
  };
  let key;
  try {
    const bundle = join(work, `${PROVIDER}.cjs`);
    await step('bundling the provider into one JavaScript file', async () => {
      const { warnings, modules } = await bundleProvider({ outFile: bundle, version });
      for (const w of warnings) log(`      warning: ${w}`);
      return `${modules} modules, ${(readFileSync(bundle).length / 1e6).toFixed(1)} MB`;
    });

    await step(`making the provider executables (Node ${process.versions.node} single executable applications) and zipping them`, async () => {
      const made = [];
      for (const platform of PLATFORMS) {
        const arch = NODE_ARCH[platform.split('_')[1]];
        const exe = join(work, `${platform}`, `${PROVIDER}_v${version}`);
        mkdirSync(dirname(exe), { recursive: true });
        const node = nodeBinary(arch, process.versions.node, (m) => log(`      ${m}`));
        await buildExecutable({ bundle, node, out: exe, codeCache: arch === process.arch });
        writeZip(join(stage, `${PROVIDER}_${version}_${platform}.zip`), [{ name: basename(exe), data: readFileSync(exe), mode: 0o755 }]);
        made.push(`${platform} from ${node === process.execPath ? 'the running node' : node}`);
      }
      return made.join('; ');
    });

    await step('writing the registry manifest, SHA256SUMS and its signature', async () => {
      writeFileSync(join(stage, `${PROVIDER}_${version}_manifest.json`), `${JSON.stringify({ version: 1, metadata: { protocol_versions: ['6.0'] } }, null, 2)}\n`);
      const sums = `${PROVIDER}_${version}_SHA256SUMS`;
      writeSums(stage, [...PLATFORMS.map((p) => `${PROVIDER}_${version}_${p}.zip`), `${PROVIDER}_${version}_manifest.json`], sums);
      key = openSigningKey();
      if (key.throwaway) log('      no $TOLLGATE_RELEASE_GPG_HOME: signing with a throwaway key made for this run (fine for tests, not for publishing)');
      key.sign(join(stage, sums), join(stage, `${sums}.sig`));
      writeFileSync(join(stage, 'signing-key.asc'), key.exportPublic());
      return `key ${key.fingerprint}`;
    });

    await step('packaging the Helm charts', async () => {
      const helm = helmBinary();
      for (const chart of CHARTS) run(helm, ['package', join(root, 'charts', chart), '--version', version, '--app-version', version, '--destination', stage]);
      return CHARTS.map((c) => `${c}-${version}.tgz`).join(', ');
    });

    await step('writing the OpenAPI document', async () => {
      run(process.execPath, ['--conditions=tollgate-source', '--import', 'tsx', join(root, 'scripts/release/openapi.mjs'), version, join(stage, 'openapi.json')]);
    });

    await step('adding CHANGELOG.md', async () => {
      const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
      copyFileSync(join(root, 'CHANGELOG.md'), join(stage, 'CHANGELOG.md'));
      if (!changelog.includes(`## [${version}]`)) log(`      warning: CHANGELOG.md has no section "## [${version}]"`);
    });

    await step('writing SHA256SUMS over every file', async () => {
      const names = readdirSync(stage).filter((f) => f !== 'SHA256SUMS');
      writeSums(stage, names, 'SHA256SUMS');
      const missing = releaseFiles(version).filter((f) => !existsSync(join(stage, f)));
      if (missing.length) throw new Error(`the release lacks ${missing.join(', ')}`);
      return `${names.length} files`;
    });

    rmSync(out, { recursive: true, force: true });
    renameSync(stage, out);
    chmodSync(out, 0o755); // mkdtemp made it private
  } finally {
    key?.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(stage, { recursive: true, force: true });
  }
  return { out, files: releaseFiles(version), throwawayKey: key?.throwaway ?? true };
}

async function main(argv) {
  const requested = arg(argv, '--version');
  const out = resolve(arg(argv, '--out') ?? join(root, 'dist', 'release'));
  let version = requested;
  if (version === undefined) {
    version = readVersion();
    // A release of the tree's own version must agree with every copy of it (the charts, the workspaces).
    const wrong = mismatches();
    if (wrong.length) throw new Error(`the version copies disagree with package.json (${version}):\n${wrong.map((m) => `  ${m.file}: ${m.what} = ${m.found}`).join('\n')}\nrun: node scripts/version.mjs --set ${version}`);
  } else if (!isVersion(version)) {
    throw new Error(`--version: not a semantic version: ${version}`);
  }
  const t0 = performance.now();
  console.log(`release ${version} into ${out}${requested ? ' (--version: the tree is not edited)' : ''}`);
  const { files } = await release({ version, out });
  console.log(`release ${version}: ${files.length} files in ${out} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  for (const f of files) console.log(`  ${f}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`release: ${error.message}`);
    process.exitCode = 1;
  });
}
