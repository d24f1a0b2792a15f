import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser } from './sse.ts';

function parse(chunks: string[], max = 1 << 20): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const p = new SseParser((e, d) => out.push([e, d]), max);
  for (const c of chunks) p.push(Buffer.from(c));
  p.end();
  return out;
}

test('events split at any byte boundary are reassembled', () => {
  const wire = 'event: message_start\ndata: {"a":1}\n\n: keep-alive\n\ndata: x\ndata: y\n\ndata: [DONE]\n\n';
  const whole = parse([wire]);
  assert.deepEqual(whole, [['message_start', '{"a":1}'], ['message', 'x\ny'], ['message', '[DONE]']]);
  for (let i = 1; i < wire.length; i++) assert.deepEqual(parse([wire.slice(0, i), wire.slice(i)]), whole, `split at ${i}`);
});

test('CRLF and CR line endings, including a CRLF split across chunks', () => {
  assert.deepEqual(parse(['data: a\r\n\r\ndata: b\r', '\n\r\n']), [['message', 'a'], ['message', 'b']]);
  assert.deepEqual(parse(['data: a\r\rdata: b\r\r']), [['message', 'a'], ['message', 'b']]);
});

test('multi-byte UTF-8 split across chunks', () => {
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
});

test('a final event without a blank line is dispatched at the end', () => {
  assert.deepEqual(parse(['data: last']), [['message', 'last']]);
});
