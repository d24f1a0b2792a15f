import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomChunks, seededRandom } from '@tollgate/testkit/seeded-random.ts';
import { SseParser, SseSplitter, withData, type SseEvent } from './sse.ts';

function parse(chunks: Array<string | Buffer>, max = 1 << 20): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const p = new SseParser((e, d) => out.push([e, d]), max);
  for (const c of chunks) p.push(Buffer.from(c));
  p.end();
  return out;
}

function split(chunks: Array<string | Buffer>, max = 1 << 20): SseEvent[] {
  const sp = new SseSplitter(max);
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...sp.push(Buffer.from(c)));
  out.push(...sp.end());
  return out;
}

test('parser: events split at any byte boundary are reassembled', () => {
  const wire = 'event: message_start\ndata: {"a":1}\n\n: keep-alive\n\ndata: x\ndata: y\n\ndata: [DONE]\n\n';
  const whole = parse([wire]);
  assert.deepEqual(whole, [['message_start', '{"a":1}'], ['message', 'x\ny'], ['message', '[DONE]']]);
  for (let i = 1; i < wire.length; i++) assert.deepEqual(parse([wire.slice(0, i), wire.slice(i)]), whole, `split at ${i}`);
});

test('parser: CRLF and CR line endings, including a CRLF split across chunks', () => {
  assert.deepEqual(parse(['data: a\r\n\r\ndata: b\r', '\n\r\n']), [['message', 'a'], ['message', 'b']]);
  assert.deepEqual(parse(['data: a\r\rdata: b\r\r']), [['message', 'a'], ['message', 'b']]);
});

test('parser: a CRLF split before a blank line ends the event there', () => {
  // The LF after a chunk-final CR belongs to that CR; the LF after it is the blank line.
  assert.deepEqual(parse(['data: a\r', '\n\ndata: b\n\n']), [['message', 'a'], ['message', 'b']]);
  assert.deepEqual(parse(['data: a\r', '\r\ndata: b\r\n\r\n']), [['message', 'a'], ['message', 'b']]);
});

test('parser: a CR at the very end of the stream ends the line', () => {
  assert.deepEqual(parse(['data: last\r']), [['message', 'last']]);
});

test('parser: multi-byte UTF-8 split across chunks', () => {
  const bytes = Buffer.from('data: héllo €\n\n');
  const p: Array<[string, string]> = [];
  const parser = new SseParser((e, d) => p.push([e, d]), 1000);
  for (const b of bytes) parser.push(Buffer.from([b]));
  assert.deepEqual(p, [['message', 'héllo €']]);
});

test('an event over the cap is skipped, the following ones are read', () => {
  const big = 'x'.repeat(200);
  assert.deepEqual(parse([`data: ${big}\n\ndata: small\n\n`], 100), [['message', 'small']]);
  assert.deepEqual(parse([`data: ${big.slice(0, 90)}`, `${big}\n\ndata: ok\n\n`], 100), [['message', 'ok']]);
  assert.deepEqual(parse([`data: ${big}`, `x\n\ndata: ok\n\n`], 100), [['message', 'ok']], 'an unfinished line over the cap, dropped before its end');
  assert.deepEqual(parse([`data: ${big.slice(0, 60)}\ndata: ${big.slice(0, 60)}\n\ndata: ok\n\n`], 100), [['message', 'ok']], 'data lines that only add up past the cap');
});

test('parser: a final event without a blank line is dispatched at the end', () => {
  assert.deepEqual(parse(['data: last']), [['message', 'last']]);
});

test('splitter: events are cut at blank lines across chunk boundaries and line-ending styles, raw text kept', () => {
  const input = 'id: 1\nevent: message\ndata: {"a":1}\n\n: comment\r\n\r\nretry: 100\rdata: x\r\rdata: y\ndata: z\n\n';
  const chunks = [];
  for (let i = 0; i < input.length; i += 3) chunks.push(input.slice(i, i + 3));
  const out = split(chunks, 1024);
  assert.equal(out.map((e) => e.raw).join(''), input, 'byte for byte');
  assert.deepEqual(out.map((e) => e.data), ['{"a":1}', undefined, 'x', 'y\nz']);
  assert.equal(withData(out[0]!, '{"b":2}'), 'id: 1\nevent: message\ndata: {"b":2}\n\n');
});

test('splitter: multi-byte characters split across chunks survive', () => {
  const sp = new SseSplitter(1024);
  const bytes = Buffer.from('data: "héllo ✓"\n\n');
  const out = [...sp.push(bytes.subarray(0, 9)), ...sp.push(bytes.subarray(9, 17)), ...sp.push(bytes.subarray(17))];
  assert.equal(out[0]!.data, '"héllo ✓"');
});

test('splitter: an event over the cap is not kept whole; its head, tail and non-data fields are, the following ones are read', () => {
  const big = `id: ev-9\ndata: {"result":{"text":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":42}\n\ndata: {"small":true}\n\n`;
  const chunks = [];
  for (let i = 0; i < big.length; i += 64) chunks.push(big.slice(i, i + 64));
  const out = split(chunks, 100);
  assert.equal(out.length, 2);
  assert.deepEqual(out[0]!.lines, ['id: ev-9']);
  assert.equal(out[0]!.raw, undefined);
  assert.ok(out[0]!.oversized!.head.startsWith('id: ev-9\ndata: {"result":'));
  assert.ok(out[0]!.oversized!.tail.endsWith('"jsonrpc":"2.0","id":42}\n\n'));
  assert.ok(out[0]!.oversized!.head.length <= 4096 && out[0]!.oversized!.tail.length <= 4096);
  assert.equal(out[1]!.data, '{"small":true}');
});

test('both planes read the same events from the same bytes, cut anywhere', () => {
  const wire = 'event: delta\r\ndata: {"a":1}\r\n\r\n: ping\n\ndata: x\rdata: y\r\rid: 4\nretry: 10\ndata\n\ndata:tight\n\n';
  for (let i = 1; i < wire.length; i++) {
    const chunks = [wire.slice(0, i), wire.slice(i)];
    const fromParser = parse(chunks).map(([, d]) => d);
    const fromSplitter = split(chunks).flatMap((e) => (e.data === undefined ? [] : [e.data]));
    assert.deepEqual(fromParser, ['{"a":1}', 'x\ny', '', 'tight'], `split at ${i}`);
    assert.deepEqual(fromSplitter, fromParser, `split at ${i}`);
  }
});

test('both planes: lines far longer than a chunk are read the same whatever the chunks', () => {
  // A line spanning many chunks is held aside until one brings its end (SseLines): what comes out must not depend on
  // where the stream was cut.
  const payloads = ['x'.repeat(9000), 'é'.repeat(3000), '中😀'.repeat(1200), '{"id":7}'];
  for (let seed = 1; seed <= 30; seed++) {
    const r = seededRandom(seed);
    const eol = ['\n', '\r\n', '\r'][seed % 3]!;
    let wire = '';
    for (let i = 0; i < 4; i++) {
      wire += `id: ${i}${eol}`;
      for (let l = 0; l < 1 + (i % 2); l++) wire += `data: ${payloads[Math.floor(r() * payloads.length)]}${eol}`;
      wire += `${eol}: ping${eol}${eol}`;
    }
    const bytes = Buffer.from(wire);
    const chunks = randomChunks(bytes, r, 2500);
    assert.deepEqual(parse(chunks), parse([bytes]), `parser, seed ${seed}`);
    const events = split(chunks);
    assert.equal(events.map((e) => e.raw).join(''), wire, `splitter byte for byte, seed ${seed}`);
    assert.deepEqual(events, split([bytes]), `splitter, seed ${seed}`);
  }
});
