import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseSplitter, withData } from './sse.ts';
import { sniffId } from './respond.ts';

test('events are cut at blank lines across chunk boundaries and line-ending styles, raw text kept', () => {
  const sp = new SseSplitter(1024);
  const input = 'id: 1\nevent: message\ndata: {"a":1}\n\n: comment\r\n\r\nretry: 100\rdata: x\r\rdata: y\ndata: z\n\n';
  const out = [];
  for (let i = 0; i < input.length; i += 3) out.push(...sp.push(Buffer.from(input.slice(i, i + 3))));
  out.push(...sp.end());
  assert.equal(out.map((e) => e.raw).join(''), input, 'byte for byte');
  assert.deepEqual(out.map((e) => e.data), ['{"a":1}', undefined, 'x', 'y\nz']);
  assert.equal(withData(out[0]!, '{"b":2}'), 'id: 1\nevent: message\ndata: {"b":2}\n\n');
});

test('multi-byte characters split across chunks survive', () => {
  const sp = new SseSplitter(1024);
  const bytes = Buffer.from('data: "héllo ✓"\n\n');
  const out = [...sp.push(bytes.subarray(0, 9)), ...sp.push(bytes.subarray(9, 17)), ...sp.push(bytes.subarray(17))];
  assert.equal(out[0]!.data, '"héllo ✓"');
});

test('an event over the cap is not kept; its id can still be found, its fields kept', () => {
  const sp = new SseSplitter(100);
  const big = `id: ev-9\ndata: {"result":{"text":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":42}\n\ndata: {"small":true}\n\n`;
  const out = [];
  for (let i = 0; i < big.length; i += 64) out.push(...sp.push(Buffer.from(big.slice(i, i + 64))));
  assert.equal(out.length, 2);
  assert.ok(out[0]!.oversized);
  assert.deepEqual(out[0]!.lines, ['id: ev-9']);
  assert.equal(sniffId(out[0]!.oversized!.head, out[0]!.oversized!.tail), 42);
  assert.equal(out[1]!.data, '{"small":true}');
  assert.equal(sniffId('data: {"jsonrpc":"2.0","id":"abc","result":{"x":"', 'truncated'), 'abc');
});

test('the start of an oversized event tells a response from a notification or server request', async () => {
  const { messageStart } = await import('./respond.ts');
  assert.deepEqual(messageStart('data: {"method":"notifications/progress","params":{"progressToken":1,"message":"xxx'), { method: 'notifications/progress' });
  assert.deepEqual(messageStart('id: 7\nevent: message\ndata: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"a":"}'), { method: 'sampling/createMessage' });
  assert.deepEqual(messageStart('data: {"result":{"content":[{"type":"text","text":"xxxx'), { response: true });
  assert.deepEqual(messageStart('data: {"jsonrpc":"2.0","id":3,"error":{"code":1'), { response: true });
  assert.deepEqual(messageStart('data: {"jsonrpc":"2.0","id":{"weird":"}"},"result":'), { response: true });
  assert.equal(messageStart('data: {"params":{"data":"yyyyyyyy'), undefined, 'a first member that runs past the head tells nothing');
  assert.equal(messageStart('data: [1,2'), undefined);
});
