// Makes a Node single executable application (SEA) from a CommonJS bundle and a node binary: node writes the
// preparation blob (--experimental-sea-config), postject injects it into a copy of the binary and flips its fuse.
// The blob is made by the running node, so the target binary must be of the same Node version.
import { copyFileSync, chmodSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// The sentinel every Node binary since 18.16 carries; postject flips it to say "a blob is injected".
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/**
 * Writes `out`. `codeCache` compiles the bundle into V8 code cache at build time (faster start); V8 only takes a cache
 * made on the same architecture, so it must be false when `node` is another architecture than the running one.
 */
export async function buildExecutable({ bundle, node, out, codeCache }) {
  const config = `${out}.sea-config.json`;
  const blob = `${out}.sea-blob`;
  writeFileSync(config, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: codeCache, useSnapshot: false }));
  try {
    const r = spawnSync(process.execPath, ['--experimental-sea-config', config], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`node --experimental-sea-config failed:\n${r.stdout}${r.stderr}`);
    rmSync(out, { force: true });
    copyFileSync(node, out);
    chmodSync(out, 0o755);
    // postject's command line rather than its module: its ELF library writes warnings about Node's many note
    // sections straight to the process's stderr, which would bury the release's step output.
    const inject = spawnSync(process.execPath, [require.resolve('postject/dist/cli.js'), out, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE], { encoding: 'utf8' });
    if (inject.status !== 0) throw new Error(`postject failed:\n${inject.stdout}${inject.stderr}`);
  } finally {
    rmSync(config, { force: true });
    rmSync(blob, { force: true });
  }
}
