// The container image's file tree, laid out without a container engine: the runtime stage of the Dockerfile read
// line by line (WORKDIR, COPY, USER, ENTRYPOINT, CMD), its COPY sources taken from this workspace as the stages would
// have them: the build context filtered by .dockerignore, the build stage's /src as this clone after
// scripts/build.mjs, and the deps stage's node_modules as the packages `npm ci --omit=dev -w ...` installs, read
// from package-lock.json and hard-linked from ./node_modules (same versions, same native re2 build).
// What this cannot show: that the image builds (apt, npm ci and re2's compile inside node:26-bookworm-slim).
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, copyFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface RuntimeStage {
  workdir: string;
  user: string;
  entrypoint: string[];
  cmd: string[];
  copies: Array<{ from?: string; src: string; dest: string }>;
  runs: string[];
}

interface Stage { name: string; instructions: Array<{ op: string; args: string }> }

/** The Dockerfile's stages: continuation lines joined, comments dropped. */
export function dockerStages(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!op) continue;
    if (op.toUpperCase() === 'FROM') stages.push({ name: /\bAS\s+(\S+)/i.exec(args!)?.[1] ?? '', instructions: [] });
    else stages.at(-1)?.instructions.push({ op: op.toUpperCase(), args: args! });
  }
  return stages;
}

export function runtimeStage(text: string): RuntimeStage {
  const stage = dockerStages(text).find((s) => s.name === 'runtime');
  if (!stage) throw new Error('the Dockerfile has no stage "runtime"');
  const out: RuntimeStage = { workdir: '/', user: 'root', entrypoint: [], cmd: [], copies: [], runs: [] };
  for (const { op, args } of stage.instructions) {
    if (op === 'WORKDIR') out.workdir = args;
    else if (op === 'USER') out.user = args;
    else if (op === 'ENTRYPOINT') out.entrypoint = JSON.parse(args) as string[];
    else if (op === 'CMD') out.cmd = JSON.parse(args) as string[];
    else if (op === 'RUN') out.runs.push(args);
    else if (op === 'COPY') {
      const parts = args.split(/\s+/);
      const from = parts[0]!.startsWith('--from=') ? parts.shift()!.slice('--from='.length) : undefined;
      if (parts.length !== 2) throw new Error(`COPY with one source and one destination expected: ${args}`);
      out.copies.push({ from, src: parts[0]!, dest: parts[1]! });
    }
  }
  return out;
}

/** The workspaces the deps stage installs: the -w flags of its `npm ci`. */
export function depsWorkspaces(text: string): string[] {
  const deps = dockerStages(text).find((s) => s.name === 'deps');
  const ci = deps?.instructions.find((i) => i.op === 'RUN' && /npm ci/.test(i.args));
  if (!ci || !/--omit=dev/.test(ci.args)) throw new Error('the deps stage should run npm ci --omit=dev');
  return [...ci.args.matchAll(/(?:-w|--workspace)[ =](\S+)/g)].map((m) => m[1]!);
}

// ------------------------------------------------------------------------------------------------------------
// .dockerignore

type Pattern = { negate: boolean; re: RegExp };

/** A .dockerignore pattern as a regular expression: `**` any number of directories, `*` and `?` within one. */
function globRe(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith('**/', i)) { re += '(?:.*/)?'; i += 2; } else if (glob.startsWith('**', i)) { re += '.*'; i += 1; } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function dockerignore(text: string): Pattern[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    .map((l) => (l.startsWith('!') ? { negate: true, re: globRe(l.slice(1)) } : { negate: false, re: globRe(l) }));
}

/** Docker's rule: the last pattern matching the path, or one of its parent directories, decides. */
export function isIgnored(rel: string, patterns: Pattern[]): boolean {
  const prefixes = rel.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const p of patterns) if (prefixes.some((x) => p.re.test(x))) ignored = !p.negate;
  return ignored;
}

// ------------------------------------------------------------------------------------------------------------
// Copying

/** Copies a tree (files hard-linked when `link`, else copied; symlinks recreated), skipping what `skip` says. */
function copyTree(src: string, dest: string, opts: { link: boolean; skip?: (rel: string) => boolean }, rel = ''): number {
  const st = lstatSync(src);
  if (opts.skip?.(rel)) return 0;
  if (st.isSymbolicLink()) {
    mkdirSync(dirname(dest), { recursive: true });
    symlinkSync(readlinkSync(src), dest);
    return 1;
  }
  if (st.isDirectory()) {
    mkdirSync(dest, { recursive: true });
    chmodSync(dest, 0o755);
    let n = 0;
    for (const name of readdirSync(src)) n += copyTree(join(src, name), join(dest, name), opts, rel ? `${rel}/${name}` : name);
    return n;
  }
  mkdirSync(dirname(dest), { recursive: true });
  if (opts.link) linkSync(src, dest);
  else copyFileSync(src, dest);
  return 1;
}

interface LockPackage { link?: boolean; resolved?: string; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> }

/** A package's dependencies as npm installs them without dev: [name, optional]. */
function wantedBy(p: LockPackage): Array<readonly [string, boolean]> {
  return [
    ...Object.keys(p.dependencies ?? {}).map((n) => [n, false] as const),
    ...Object.keys(p.optionalDependencies ?? {}).map((n) => [n, true] as const),
    ...Object.keys(p.peerDependencies ?? {}).map((n) => [n, !!p.peerDependenciesMeta?.[n]?.optional] as const),
  ];
}

/** Where node finds `name` from the lock path `from`: its own node_modules, then each parent's, then the root's. */
function resolveIn(pkgs: Record<string, LockPackage>, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (pkgs[candidate]) return candidate;
    if (!dir) return undefined;
  }
}

/** The lock paths `npm ci --omit=dev -w <workspaces>` installs: what the workspaces need, resolved as node does. */
export function productionPackages(root: string, workspaces: string[]): Set<string> {
  const pkgs = (JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> }).packages;
  const out = new Set<string>();
  const queue: string[] = [];
  const visit = (path: string) => {
    if (out.has(path)) return;
    out.add(path);
    queue.push(path);
  };
  for (const ws of workspaces) {
    visit(ws);
    const link = Object.entries(pkgs).find(([, v]) => v.link && v.resolved === ws)?.[0];
    if (link) out.add(link);
  }
  while (queue.length) {
    const path = queue.shift()!;
    for (const [name, optional] of wantedBy(pkgs[path]!)) {
      const at = resolveIn(pkgs, path, name);
      // An optional package for another platform is in the lock but not installed here, nor in the image.
      const installed = !!at && existsSync(join(root, at));
      if (!installed && optional) continue;
      if (!installed) throw new Error(`${path} needs ${name}, which package-lock.json does not resolve`);
      const entry = pkgs[at]!;
      if (entry.link) out.add(at);
      visit(entry.link ? entry.resolved! : at);
    }
  }
  return out;
}

/** Lays out the node_modules of the deps stage under `dest`: the production packages, hard-linked. */
function layOutNodeModules(root: string, workspaces: string[], dest: string): number {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
  let files = 0;
  const paths = [...productionPackages(root, workspaces)].filter((p) => p.startsWith('node_modules/')).sort();
  for (const p of paths) {
    const target = join(dest, p.slice('node_modules/'.length));
    const entry = lock.packages[p]!;
    if (entry.link) {
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(relative(dirname(join(root, p)), join(root, entry.resolved!)), target);
      continue;
    }
    // Nested node_modules are packages of their own, laid out (or left out) by their own lock paths.
    files += copyTree(join(root, p), target, { link: true, skip: (rel) => rel === 'node_modules' });
  }
  return files;
}

/**
 * Builds the runtime stage's tree under `imageRoot` (its WORKDIR below it) and returns the stage. The build stage's
 * outputs must exist (scripts/build.mjs).
 */
export function layOutImage(root: string, imageRoot: string): RuntimeStage & { appDir: string; files: number } {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const stage = runtimeStage(dockerfile);
  const ignore = dockerignore(readFileSync(join(root, '.dockerignore'), 'utf8'));
  const appDir = join(imageRoot, stage.workdir);
  mkdirSync(appDir, { recursive: true });
  chmodSync(imageRoot, 0o755);
  let files = 0;
  for (const c of stage.copies) {
    const dest = join(appDir, c.dest);
    if (c.from === 'deps') {
      if (c.src !== '/src/node_modules') throw new Error(`unexpected COPY from deps: ${c.src}`);
      files += layOutNodeModules(root, depsWorkspaces(dockerfile), dest);
    } else if (c.from === 'build') {
      if (!c.src.startsWith('/src/')) throw new Error(`unexpected COPY from build: ${c.src}`);
      files += copyTree(join(root, c.src.slice('/src/'.length)), dest, { link: false });
    } else if (c.from) {
      throw new Error(`COPY --from=${c.from}: unknown stage`);
    } else {
      const src = c.src.replace(/\/$/, '');
      const into = c.dest.endsWith('/') && lstatSync(join(root, src)).isFile() ? join(dest, src.split('/').pop()!) : dest;
      files += copyTree(join(root, src), into, { link: false, skip: (rel) => isIgnored(rel ? `${src}/${rel}` : src, ignore) });
    }
  }
  // RUN ln -s TARGET LINK (the `tollgate` command on the PATH).
  for (const run of stage.runs) {
    for (const [, target, link] of run.matchAll(/\bln -s (\S+) (\S+)/g)) {
      mkdirSync(dirname(join(imageRoot, link!)), { recursive: true });
      symlinkSync(join(imageRoot, target!), join(imageRoot, link!));
    }
  }
  return { ...stage, appDir, files };
}
