// Where the compiled JavaScript of the server lives, and whether it is up to date with the TypeScript sources (the
// server's and the contract package's, which the build compiles first).
// `npm run build` writes it; the `tollgate` command runs it when it is fresh and falls back to the sources (through
// tsx) otherwise, so an edited source file is never shadowed by an old build.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const serverDir = fileURLToPath(new URL('..', import.meta.url));
export const srcDir = join(serverDir, 'src');
/** The workspace packages the server imports, whose builds the compiled server loads (contract/dist). */
export const contractDir = join(serverDir, '..', 'contract');
export const contractSrcDir = join(contractDir, 'src');
export const distDir = join(serverDir, 'dist');
/** Written last by the build: its mtime is the moment the whole tree was emitted. */
export const stampFile = join(distDir, '.build-stamp');

function newestSourceMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSourceMtime(p));
    else if (!e.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * True when dist/ exists and no source file (tests aside) changed after it was built. An install that ships the build
 * without the sources (a slim image) has nothing to be stale against.
 */
export function compiledIsFresh(sources = [srcDir, contractSrcDir], stamp = stampFile) {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return false;
  }
  try {
    return Math.max(...[sources].flat().map(newestSourceMtime)) <= built;
  } catch (err) {
    if (err.code === 'ENOENT') return true;
    throw err;
  }
}
