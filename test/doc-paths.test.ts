// Docs and code comments send readers to files of this repository. A path that no longer resolves (the file moved,
// was renamed or deleted) sends them nowhere, and a document outside the repository (the team's design notes) is
// one nobody with only the repository can open: both fail here. The scanning is in test/doc-paths.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  comments, filesUnder, headingAnchors, markdownLinks, outsideReferences, ownAnchors, problemOf, repoPaths,
  type Citation,
} from './doc-paths.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CODE_DIRS = ['contract/src', 'server/src', 'operator/src', 'provider/src', 'test', 'bench', 'scripts'];

function docFiles(): string[] {
  return ['README.md', 'SECURITY.md', ...filesUnder(ROOT, 'docs', (n) => n.endsWith('.md'))];
}

function codeFiles(): string[] {
  return CODE_DIRS.flatMap((d) => filesUnder(ROOT, d, (n) => n.endsWith('.ts') || n.endsWith('.mjs')));
}

function read(file: string): string {
  return readFileSync(`${ROOT}/${file}`, 'utf8');
}

function problems(file: string, citations: Citation[]): string[] {
  return citations.flatMap((c) => {
    const p = problemOf(ROOT, c);
    return p ? [`${file}: ${p}`] : [];
  });
}

test('every repository path the docs cite exists, and so does every heading their links name', () => {
  const files = docFiles();
  assert.ok(files.length >= 30, `${files.length} markdown files`);
  const found: string[] = [];
  let cited = 0;
  for (const file of files) {
    const text = read(file);
    const citations = [...repoPaths(text), ...markdownLinks(file, text)];
    cited += citations.length;
    found.push(...problems(file, citations));
    const own = headingAnchors(text);
    for (const a of ownAnchors(text)) if (!own.has(a)) found.push(`${file}: #${a} (no heading with that anchor)`);
  }
  assert.ok(cited >= 300, `${cited} citations`);
  assert.deepEqual(found, []);
});

test('every repository path a code comment cites exists', () => {
  const files = codeFiles();
  assert.ok(files.length >= 400, `${files.length} source files`);
  const found: string[] = [];
  let cited = 0;
  for (const file of files) {
    const citations = comments(file, read(file)).flatMap(repoPaths);
    cited += citations.length;
    found.push(...problems(file, citations));
  }
  assert.ok(cited >= 80, `${cited} citations`);
  assert.deepEqual(found, []);
});

test('no doc, comment or test names a document outside the repository', () => {
  const found = [...docFiles(), ...codeFiles()].flatMap((file) => outsideReferences(read(file)).map((r) => `${file}: ${r}`));
  assert.deepEqual(found, []);
});

test('the scanner: paths with anchors and lines, placeholders skipped, comments only, links resolved', () => {
  const text = 'see `server/src/app.ts:12`, docs/gateway.md#benchmark, rules/<type>/, server/src/gateway/rules/<type>/x.ts, '
    + 'NNN_*.sql under server/src/db/migrations/NNN_*.sql, @tollgate/server/x, ../crds, server/dist/app.js and test/nowhere.ts.';
  assert.deepEqual(repoPaths(text).map((c) => [c.path, c.anchor]), [
    ['server/src/app.ts', undefined], ['docs/gateway.md', 'benchmark'], ['test/nowhere.ts', undefined],
  ]);
  assert.deepEqual(repoPaths(text).map((c) => problemOf(ROOT, c)), [undefined, undefined, 'test/nowhere.ts (no such file or folder)']);
  assert.equal(problemOf(ROOT, { path: 'docs/gateway.md', anchor: 'no-such-heading', raw: 'x' }), 'x (no heading with that anchor)');

  const source = [
    "const url = 'http://h/docs/in-a-string.md'; // docs/in-a-comment.md",
    'const re = /\\/\\/ test\\/in-a-regex.ts/;',
    '/* test/in-a-block.ts */ const t = `${re} // docs/in-a-template.md`;',
  ].join('\n');
  assert.deepEqual(comments('x.ts', source).flatMap(repoPaths).map((c) => c.path), ['docs/in-a-comment.md', 'test/in-a-block.ts']);

  assert.deepEqual(markdownLinks('docs/x.md', '[a](gateway.md#benchmark) [b](../crds) [c](https://x/y) [d](#own)')
    .map((c) => [c.path, c.anchor]), [['docs/gateway.md', 'benchmark'], ['crds', undefined]]);
  assert.equal(problemOf(ROOT, markdownLinks('docs/x.md', '[a](../../outside.md)')[0]!), '../../outside.md (outside the repository)');
  assert.deepEqual([...headingAnchors('# A title\n## What a request may cost\n```\n# not a heading\n```\n## A title')],
    ['a-title', 'what-a-request-may-cost', 'a-title-1']);

  // Spelled in pieces, so that this file passes its own check.
  const [up, design] = ['../' + 'shared', 'DESIGN' + ' §'];
  assert.deepEqual(outsideReferences(`see ${up}/x.md and ${design}3`), [up, design]);
});
