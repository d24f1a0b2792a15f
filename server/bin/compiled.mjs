// Where the compiled JavaScript of each workspace lives, and whether it is up to date with what it was built from.
// `npm run build` (scripts/build.mjs) writes contract/dist, server/dist and operator/dist; `tollgate` runs server/dist
// and the operator's entry points run operator/dist when they are fresh. Otherwise, in a development checkout, they run
// the sources through tsx, so an edited source file is never shadowed by an old build.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const rootDir = fileURLToPath(new URL('../..', import.meta.url));

function workspace(name, { uses = [] } = {}) {
  const dir = join(rootDir, name);
  const distDir = join(dir, 'dist');
  const own = [join(dir, 'src'), join(dir, 'tsconfig.build.json')];
  return {
    name,
    dir,
    srcDir: join(dir, 'src'),
    distDir,
    /** Written last by the build, dated when that build started reading its inputs. */
    stampFile: join(distDir, '.build-stamp'),
    /** What the build reads: a change to any of it (tests aside) makes dist/ stale. */
    inputs: [...own, join(rootDir, 'tsconfig.base.json'), ...uses.flatMap((u) => u.ownInputs)],
    ownInputs: own,
  };
}

export const contract = workspace('contract');
/** The server's and the operator's builds load contract/dist, so the contract's sources count for them too. */
export const server = workspace('server', { uses: [contract] });
export const operator = workspace('operator', { uses: [contract] });
/** In build order: each after the workspaces it imports. */
export const workspaces = [contract, server, operator];

function newestMtime(path) {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    if (err.code === 'ENOENT') return 0;
    throw err;
  }
  if (!st.isDirectory()) return path.endsWith('.test.ts') ? 0 : st.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/**
 * True when the stamp exists and no input (tests aside) changed after the build that wrote it started. An absent input
 * counts for nothing: an install that ships the build without its sources (the image) has nothing to be stale against.
 */
export function compiledIsFresh(inputs = server.inputs, stamp = server.stampFile) {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return false;
  }
  return Math.max(0, ...[inputs].flat().map((p) => newestMtime(p))) <= built;
}

/** Whether `ws` (one of `workspaces`) has a build that is up to date. */
export function isFresh(ws) {
  return compiledIsFresh(ws.inputs, ws.stampFile);
}
