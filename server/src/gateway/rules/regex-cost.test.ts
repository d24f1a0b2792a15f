// The structural count behind the save-time pattern check: exact counts for the constructs it reads, the
// catastrophic patterns refused, and every pattern the docs and the prompt_guard catalogue show accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_REPETITION_SIZE, repetitionSize, slowPatternReason } from '@tollgate/contract';
import { compileUserRegex } from './regex.ts';
import { DETECTORS } from './prompt_guard/detectors.ts';

test('counted repetitions expand to n copies, plus one branch per optional copy; the rest of the pattern counts nothing', () => {
  const cases: Array<[string, number]> = [
    ['plain|words|only', 0],
    ['a*b+c?', 0],
    ['\\d{4}', 4],
    ['\\d{1,100}x', 199],
    ['a{2,}', 4],
    ['(?:ab|c){3}', 12],
    ['(?:\\d{1,30}){1,30}x', 1799],
    ['[a-z]{1,300}[0-9]{1,300}x', 1198],
    ['x{1,5}?', 9],
    ['(?P<card>\\d{4}){4}', 16],
    ['(?i)(?:[a-z]{1,3}\\s){2}', 12],
    ['\\Q{1,999}\\E', 0],
    ['a{,3}', 0],
    ['[\\]{}]{3}', 3],
    ['[[:alpha:]]{5}', 5],
    ['\\pL{1,10}', 1009],
    ['[\\p{Greek}\\d]{2}', 200],
    ['\\x{41}{3}\\u0041{2}', 5],
  ];
  for (const [p, n] of cases) assert.equal(repetitionSize(p), n, p);
});

test('the catastrophic patterns the docs name are refused, each with the reason', () => {
  for (const p of ['\\d{1,1000}x', '(?:a|aa|aaa|aaaa){1,1000}x', '.{0,1000}x', '(?:\\d{1,30}){1,30}x', '\\pL{1,20}x', '[a-z]{1,800}[0-9]{1,800}x']) {
    assert.ok(compileUserRegex(p, '').re, `${p} compiles in RE2`);
    assert.match(slowPatternReason(p) ?? '', /^pattern is too slow on long inputs \(its counted repetitions expand to \d+ instructions, at most 1200 are allowed; keep counted repetitions of groups small\)$/, p);
  }
});

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Every `"pattern": "..."` in the README and docs/ (rule examples as JSON, or JSON inside a shell string). */
function documentedPatterns(): string[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
  const out = new Set<string>();
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    for (const m of text.matchAll(/"pattern":\s*("(?:[^"\\]|\\.)*")/g)) out.add(JSON.parse(m[1]!) as string);
  }
  return [...out];
}

test('every pattern in the docs and every prompt_guard detector is accepted', () => {
  const patterns = [...documentedPatterns(), ...DETECTORS.map((d) => d.pattern)];
  assert.ok(patterns.length >= DETECTORS.length + 4, 'the docs show rule patterns');
  for (const p of patterns) {
    assert.equal(compileUserRegex(p, 'i').error, undefined, p);
    assert.equal(slowPatternReason(p), undefined, p);
    assert.ok(repetitionSize(p) <= MAX_REPETITION_SIZE);
  }
});
