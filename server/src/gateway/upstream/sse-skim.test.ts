// The skimmer must hand on exactly the events the full parser would, and count the others as the full parser's
// payload lengths: it is on the money path (the usage it misses is not charged). Checked against SseParser on random
// streams cut at random bytes, with every line ending, multi-byte characters, comments, ids and multi-line payloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomChunks, seededRandom as rng } from '@tollgate/testkit/seeded-random.ts';
import { SseParser } from './sse.ts';
import { SseSkimmer, type SkimFilter } from './sse-skim.ts';

type Seen = Array<['event', string, string] | ['skipped', number]>;

function skim(filter: SkimFilter, chunks: Buffer[]): Seen {
  const out: Seen = [];
  const s = new SseSkimmer(filter, (e, d) => out.push(['event', e, d]), (n) => out.push(['skipped', n]), 1 << 20);
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

/** What the skimmer must do, from the full parser's events. */
function expected(filter: SkimFilter, chunks: Buffer[]): Seen {
  const out: Seen = [];
  const p = new SseParser((e, d) => {
    if (filter.names?.includes(e) || (filter.dataMarker !== undefined && d.includes(filter.dataMarker))) out.push(['event', e, d]);
    else if (d !== filter.done) out.push(['skipped', d.length]);
  }, 1 << 20);
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

const PIECES = ['{"a":1}', 'nousage":{', 'hello', ' ', 'é', '中文', '😀', '"usage":{"x":2}', '"usage":', '{', '[DONE]', 'data', ':', 'event', '\u00a0'];
const NAMES = ['message_start', 'message_delta', 'content_block_delta', 'ping', 'message'];
const ENDS = ['\n', '\r\n', '\r'];

function randomStream(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const eol = r() < 0.6 ? () => '\n' : () => pick(ENDS);
  let s = '';
  const events = 1 + Math.floor(r() * 8);
  for (let i = 0; i < events; i++) {
    const fields = 1 + Math.floor(r() * 4);
    for (let f = 0; f < fields; f++) s += randomField(r, pick, i) + eol();
    // The last event may end without its blank line, or without the end of its last line.
    if (i < events - 1 || r() < 0.7) s += eol();
    else if (r() < 0.5) s = s.replace(/(\r\n|\r|\n)$/, '');
  }
  return s;
}

function randomField(r: () => number, pick: <T>(xs: readonly T[]) => T, i: number): string {
  const k = r();
  if (k < 0.55) {
    let v = '';
    const parts = Math.floor(r() * 4);
    for (let p = 0; p < parts; p++) v += pick(PIECES);
    return (r() < 0.8 ? 'data: ' : r() < 0.5 ? 'data:' : 'data') + (r() < 0.1 ? '' : v);
  }
  if (k < 0.75) return `event: ${pick(NAMES)}`;
  if (k < 0.85) return `: comment ${pick(PIECES)}`;
  return k < 0.92 ? `id: ${i}` : 'retry: 10';
}

const FILTERS: Array<[string, SkimFilter]> = [
  ['chat completions', { dataMarker: '"usage":{', done: '[DONE]' }],
  ['anthropic messages', { names: ['message_start', 'message_delta'] }],
  ['responses', { names: ['response.completed'], dataMarker: '"response.completed"' }],
  ['nothing read', {}],
];

test('the skimmer hands on and counts what the full parser gives, on 4000 random streams cut at random bytes', () => {
  for (const [label, filter] of FILTERS) {
    for (let seed = 1; seed <= 1000; seed++) {
      const r = rng(seed);
      const bytes = Buffer.from(randomStream(r));
      const whole = expected(filter, [bytes]);
      assert.deepEqual(skim(filter, [bytes]), whole, `${label}, seed ${seed}, one chunk: ${JSON.stringify(bytes.toString())}`);
      const chunks = randomChunks(bytes, r, 40);
      assert.deepEqual(skim(filter, chunks), whole, `${label}, seed ${seed}, ${chunks.length} chunks: ${JSON.stringify(bytes.toString())}`);
    }
  }
});

/** Payloads of 2–10 KB, with multi-byte characters and the markers: events that span many chunks. */
const LONG = ['x'.repeat(7000), 'é'.repeat(2500), `"usage":{${'y'.repeat(5000)}}`, '中😀'.repeat(1500), '{"a":1}', '[DONE]'];

function longStream(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const eol = pick(ENDS);
  let s = '';
  for (let i = 0; i < 5; i++) {
    if (r() < 0.4) s += `event: ${pick(NAMES)}${eol}`;
    const lines = 1 + Math.floor(r() * 3);
    for (let l = 0; l < lines; l++) s += `data: ${pick(LONG)}${r() < 0.5 ? pick(LONG) : ''}${eol}`;
    s += eol;
    if (r() < 0.5) s += `data: short${eol}${eol}`;
  }
  return s;
}

test('the skimmer: events far longer than a chunk, carried through hundreds of chunks, are read and counted as the parser does', () => {
  for (const [label, filter] of FILTERS) {
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      const bytes = Buffer.from(longStream(r));
      const chunks = randomChunks(bytes, r, 9000);
      assert.deepEqual(skim(filter, chunks), expected(filter, [bytes]), `${label}, seed ${seed}, ${chunks.length} chunks`);
    }
  }
});

test('the skimmer: a CR last in a chunk and its LF first in the next are one line end, not a blank line', () => {
  const f = { dataMarker: 'U' };
  const chunks = ['data: a\r', '\ndata: b\r', '\n\r', '\ndata: U\r\n\r\n'].map((c) => Buffer.from(c));
  assert.deepEqual(skim(f, chunks), [['skipped', 3], ['event', 'message', 'U']]);
});

test('the skimmer: a character split between chunks is counted once, as the parser counts it', () => {
  const bytes = Buffer.from('data: é😀x\n\n');
  assert.deepEqual(skim({}, [...bytes].map((b) => Buffer.from([b]))), [['skipped', 4]]);
});

test('the skimmer: the marker in a later data line reads the whole event; in a comment or an id it reads nothing', () => {
  const f = { dataMarker: '"usage":{' };
  const wire = Buffer.from('data: {"a":\ndata: "usage":{}}\n\n: "usage":{\ndata: x\n\nid: "usage":{\ndata: y\n\n');
  assert.deepEqual(skim(f, [wire]), [['event', 'message', '{"a":\n"usage":{}}'], ['skipped', 1], ['skipped', 1]]);
});
