// replaceAll against the semantics it must keep ($0..$9, unmatched or missing groups as '', empty matches stepping
// one code point like String.prototype.replace), and its cost staying linear in the number of matches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileUserRegex, Replacer, replaceAll } from './regex.ts';
import { slowPatternReason } from '@tollgate/contract';
import { cpuMs } from '@tollgate/testkit/cpu-time.ts';

/** The same replacement with a JavaScript RegExp (for patterns both engines read alike), as the reference. */
function reference(pattern: string, flags: string, s: string, template: string): { text: string; count: number } {
  let count = 0;
  const text = s.replace(new RegExp(pattern, `gu${flags}`), (...args: unknown[]) => {
    count++;
    let groups = 1;
    while (groups < args.length && typeof args[groups] !== 'number') groups++;
    return template.replace(/\$(\d)/g, (_, d: string) => (Number(d) < groups && typeof args[Number(d)] === 'string' ? args[Number(d)] as string : ''));
  });
  return { text, count };
}

test('replaceAll matches the reference on groups, empty matches, anchors, flags and astral characters', () => {
  const cases: Array<[string, string, string, string]> = [
    ['a', '', 'banana', '[$0]'],
    ['(\\d{4})-(\\d{4})', '', 'call 1234-5678 or 9999-0000.', '$2/$1'],
    ['(a)|(b)', '', 'abcab', '<$1|$2|$9>'],
    ['x*', '', 'axxb', '-'],
    ['', '', 'h😀é', '|'],
    ['^\\w+', 'm', 'one two\nthree four', '$0!'],
    ['SECRET', 'i', 'a secret, a Secret', '***'],
    ['.', 's', 'a\nb', '_'],
    ['😀+', '', 'x😀😀y😀', '[$0]'],
    ['\\bcard \\d+\\b', '', 'no match here', 'X'],
  ];
  for (const [pattern, flags, s, template] of cases) {
    const { re } = compileUserRegex(pattern, flags, 'g');
    assert.ok(re, pattern);
    assert.deepEqual(replaceAll(re, s, template), reference(pattern, flags, s, template), `${pattern} on ${JSON.stringify(s)}`);
    assert.deepEqual(replaceAll(re, s, template), reference(pattern, flags, s, template), 'reusable: lastIndex is reset');
    const { replacer } = Replacer.compile(pattern, flags, template);
    assert.deepEqual(replacer!.apply(s), reference(pattern, flags, s, template), `Replacer: ${pattern} on ${JSON.stringify(s)}`);
  }
});

test('a Replacer finds matches in strings of any length, in any order (its probe copy is reused and grows)', () => {
  const { replacer } = Replacer.compile('\\b(\\d{4})-\\d{4}\\b', '', '$1-****');
  const card = '1234-5678';
  // Long strings (past the first scratch buffer, then past the largest one kept), then short ones again: a stale
  // tail of a longer copy must neither hide nor invent a match.
  const texts = ['x', `${'é'.repeat(3000)} ${card}`, `${'a'.repeat(2_000_000)} ${card}`, card.slice(0, 7), `${card}`, '😀'.repeat(5000), `\ud800 ${card} \udc00`];
  for (const t of texts) {
    const expected = t.replace(/\b(\d{4})-\d{4}\b/g, '$1-****');
    const r = replacer!.apply(t);
    assert.equal(r.text, expected, `${t.length} chars`);
    assert.equal(r.count, t.includes(card) ? 1 : 0);
  }
  assert.equal(Replacer.compile('a(?=b)', '', '').error?.includes('invalid or unsupported'), true);
});

test('replaceAll stays linear in the number of matches (a long prompt full of matches cannot stall the gateway)', () => {
  // With RE2's callback replace this took about 6 s for 200k matches (quadratic); the exec walk takes a fraction.
  const { re } = compileUserRegex('\\b(\\d{4})\\d{8}(\\d{4})\\b', '', 'g');
  const s = Array.from({ length: 60_000 }, () => '4111111111111111').join(' ');
  const { value: r, ms } = cpuMs(() => replaceAll(re!, s, '$1********$2'));
  assert.equal(r.count, 60_000);
  assert.ok(r.text.startsWith('4111********1111 4111********1111'));
  assert.ok(ms < 3000, `60k matches took ${ms} ms`);
});

test('the save-time check refuses pathological patterns and accepts ordinary heavy ones', () => {
  for (const ok of ['\\d{1,100}x', '.{0,500}x', '(?:\\w+\\s){1,200}x', '\\b\\d{4}-\\d{4}-\\d{4}-(\\d{4})\\b', '(?i)secret|password|token', '[A-Za-z0-9+/]{40,}={0,2}']) {
    assert.equal(slowPatternReason(ok), undefined, ok);
  }
  assert.match(slowPatternReason('(?:a|aa|aaa|aaaa){1,1000}x') ?? '', /^pattern is too slow on long inputs \(.*; keep counted repetitions of groups small\)$/);
  // Innocent-looking, but ~20 µs per byte on a long run of digits once RE2's DFA gives up (20 s on 1 MB).
  assert.equal(slowPatternReason('\\d{1,1000}x'), 'pattern is too slow on long inputs (its counted repetitions expand to 1999 instructions, at most 1200 are allowed; keep counted repetitions of groups small)');
});
