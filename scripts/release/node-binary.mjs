// The Node binary a single executable is made from: the running node for its own architecture, otherwise the
// official build of the same Node version from the npm registry (the node-linux-<arch> package), fetched once with
// npm into ~/.cache/tollgate/node-linux-<arch>/<version>/ (outside the clone, keyed by version).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

/** Node's architecture names for Terraform's. */
export const NODE_ARCH = { amd64: 'x64', arm64: 'arm64' };

function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.stdout;
}

/** Path of a linux node binary of `version` (default: the running one's) for Node architecture `arch`. */
export function nodeBinary(arch, version = process.versions.node, log = () => {}) {
  if (process.platform === 'linux' && arch === process.arch && version === process.versions.node) return process.execPath;
  const pkg = `node-linux-${arch}`;
  const dir = join(process.env.TOLLGATE_CACHE ?? join(homedir(), '.cache', 'tollgate'), pkg, version);
  const binary = join(dir, 'node');
  if (existsSync(binary)) return binary;
  log(`fetching ${pkg}@${version} from the npm registry into ${dir}`);
  mkdirSync(dir, { recursive: true });
  const scratch = mkdtempSync(join(dir, '.fetch-'));
  try {
    const tarball = run('npm', ['pack', `${pkg}@${version}`, '--silent', '--pack-destination', scratch], { cwd: scratch }).trim().split('\n').at(-1);
    run('tar', ['-xzf', join(scratch, tarball), '-C', scratch, 'package/bin/node']);
    chmodSync(join(scratch, 'package/bin/node'), 0o755);
    // Renamed into place last, so a fetch that died half way is never taken for a binary.
    renameSync(join(scratch, 'package/bin/node'), binary);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}
