// Finds what docs and code comments cite as files of this repository, and which of those citations lead nowhere.
// test/doc-paths.test.ts runs it over the tree; the functions take text so that their own tests need no files.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/** Top-level folders: a string that starts with one of them (and a slash) is read as a repository path. */
export const TOP_LEVEL = ['server', 'contract', 'operator', 'provider', 'docs', 'test', 'bench', 'charts', 'crds', 'scripts', 'examples'];

/** Build and tool output (.gitignore): cited on purpose (`server/dist`), absent from a fresh clone, so never checked. */
const OUTPUT_SEGMENTS = new Set(['node_modules', 'dist', '.tollgate', '.cache', 'coverage', '.terraform', 'cdktf.out']);

/** Placeholders and globs (`rules/<type>/`, `NNN_*.sql`, `{a,b}`, `$DIR`, `…`) name no single file. */
const PLACEHOLDER = /[<>*{}$…]|\.\.\./;

/**
 * Where the repository points outside itself: the team's design notes and the spec's folder are not shipped with it.
 * Written so that this file does not match itself.
 */
const OUTSIDE = [/\.\.\/shared\b/, /\/work\/shared\b/, /\bDESIGN\s§/];

// Not preceded by a path character: `../server`, `@tollgate/server/x` and `https://host/docs/x` are not repository paths.
const PATH_IN_TEXT = new RegExp(`(?<![\\w./@~-])(?:${TOP_LEVEL.join('|')})/[^\\s\`'"()\\[\\],;|]*`, 'g');
const MD_LINK = /\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

export interface Citation {
  /** The path as a file of the repository (relative to its root), without anchor or line. */
  path: string;
  anchor?: string;
  /** The text as written, for the failure message. */
  raw: string;
}

/** The `path#anchor` / `path:12` / `path:12-20` forms reduced to path and anchor; trailing prose punctuation dropped. */
function split(raw: string): { path: string; anchor?: string } {
  const hash = raw.indexOf('#');
  const anchor = hash >= 0 ? raw.slice(hash + 1) : undefined;
  const path = (hash >= 0 ? raw.slice(0, hash) : raw).replace(/\?.*$/, '').replace(/(:\d+(-\d+)?)?[.:]*$/, '');
  return { path, anchor: anchor?.replace(/[.:]+$/, '') || undefined };
}

function checkable(path: string): boolean {
  return !PLACEHOLDER.test(path) && !path.split('/').some((s) => OUTPUT_SEGMENTS.has(s));
}

/** Repository paths written out in `text` (`server/src/app.ts`, `docs/gateway.md#benchmark`). */
export function repoPaths(text: string): Citation[] {
  const out: Citation[] = [];
  for (const m of text.matchAll(PATH_IN_TEXT)) {
    const raw = m[0].replace(/[.:]+$/, '');
    const { path, anchor } = split(raw);
    if (checkable(raw) && checkable(path)) out.push({ path, anchor, raw });
  }
  return out;
}

/** Relative markdown link targets of the markdown file `file` (repository-relative), resolved against its folder. */
export function markdownLinks(file: string, text: string): Citation[] {
  const out: Citation[] = [];
  for (const m of text.matchAll(MD_LINK)) {
    const raw = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('#') || raw.startsWith('/')) continue;
    const { path, anchor } = split(raw);
    if (!checkable(raw)) continue;
    out.push({ path: join(dirname(file), path).split(sep).join('/'), anchor, raw });
  }
  return out;
}

/** Links inside a markdown file to its own headings (`#what-a-request-may-cost`). */
export function ownAnchors(text: string): string[] {
  return [...text.matchAll(MD_LINK)].map((m) => m[1]!).filter((t) => t.startsWith('#') && t.length > 1).map((t) => t.slice(1));
}

/** The references to documents outside the repository in `text`. */
export function outsideReferences(text: string): string[] {
  return OUTSIDE.flatMap((re) => text.match(new RegExp(re.source, 'g')) ?? []);
}

/**
 * The comments of a TypeScript or JavaScript source, `//` and `/* *\/` alike, found by the compiler's own parser: a
 * `//` inside a string, a template or a regular expression is not a comment.
 */
export function comments(fileName: string, text: string): string[] {
  const kind = fileName.endsWith('.mjs') || fileName.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Set<number>();
  const out: string[] = [];
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push(text.slice(r.pos, r.end));
    }
  };
  // Every comment is trivia of some token: trailing on the line it ends, or leading the next one. Walking every token
  // (getChildren includes them) finds them all.
  const visit = (node: ts.Node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return out;
}

/** GitHub's heading anchors of a markdown file: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const h = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = h[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** Why `c` leads nowhere from the repository at `root`, or undefined when it resolves (and so does its anchor). */
export function problemOf(root: string, c: Citation): string | undefined {
  if (relative(root, join(root, c.path)).startsWith('..')) return `${c.raw} (outside the repository)`;
  if (!existsSync(join(root, c.path))) return `${c.raw} (no such file or folder)`;
  if (c.anchor === undefined || !c.path.endsWith('.md')) return undefined;
  const anchors = headingAnchors(readFileSync(join(root, c.path), 'utf8'));
  return anchors.has(c.anchor) ? undefined : `${c.raw} (no heading with that anchor)`;
}

/** Files under `dir` (repository-relative) whose name passes `keep`, build and tool output left out. */
export function filesUnder(root: string, dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel))) {
      if (OUTPUT_SEGMENTS.has(name)) continue;
      const p = `${rel}/${name}`;
      if (statSync(join(root, p)).isDirectory()) walk(p);
      else if (keep(name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}
