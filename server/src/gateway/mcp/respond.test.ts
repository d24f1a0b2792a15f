import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseSplitter } from '../upstream/sse.ts';
import { messageStart, sniffId } from './respond.ts';

test('the JSON-RPC id of an event over the cap is found in the head and tail the splitter keeps', () => {
  const sp = new SseSplitter(100);
  const big = `id: ev-9\ndata: {"result":{"text":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":42}\n\ndata: {"small":true}\n\n`;
  const out = [];
  for (let i = 0; i < big.length; i += 64) out.push(...sp.push(Buffer.from(big.slice(i, i + 64))));
  assert.equal(out.length, 2);
  assert.equal(sniffId(out[0]!.oversized!.head, out[0]!.oversized!.tail), 42);
  assert.equal(sniffId('data: {"jsonrpc":"2.0","id":"abc","result":{"x":"', 'truncated'), 'abc');
});

test('the start of an oversized event tells a response from a notification or server request', () => {
  assert.deepEqual(messageStart('data: {"method":"notifications/progress","params":{"progressToken":1,"message":"xxx'), { method: 'notifications/progress' });
  assert.deepEqual(messageStart('id: 7\nevent: message\ndata: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"a":"}'), { method: 'sampling/createMessage' });
  assert.deepEqual(messageStart('data: {"result":{"content":[{"type":"text","text":"xxxx'), { response: true });
  assert.deepEqual(messageStart('data: {"jsonrpc":"2.0","id":3,"error":{"code":1'), { response: true });
  assert.deepEqual(messageStart('data: {"jsonrpc":"2.0","id":{"weird":"}"},"result":'), { response: true });
  assert.equal(messageStart('data: {"params":{"data":"yyyyyyyy'), undefined, 'a first member that runs past the head tells nothing');
  assert.equal(messageStart('data: [1,2'), undefined);
});
