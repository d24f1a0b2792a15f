// The accounting tap without text collection reads streams on their bytes (gateway/upstream/sse-skim.ts): it must
// find the same usage, model and chars/4 count as reading every event decoded, for each provider's recorded stream,
// at every chunking, with CRLF line ends, and for a stream cut off before its usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProviderId } from '@tollgate/contract';
import { fixtureText } from '@tollgate/testkit/provider-fixtures.ts';
import { SseParser } from '../upstream/sse.ts';
import type { Endpoint, ProviderAdapter } from './providers/index.ts';
import { anthropic } from './providers/anthropic/index.ts';
import { gemini } from './providers/gemini/index.ts';
import { mistral } from './providers/mistral/index.ts';
import { openai } from './providers/openai/index.ts';
import { ResponseMeter, sseTap } from './meter.ts';

const STREAMS: Array<[ProviderAdapter, Endpoint, ProviderId, string]> = [
  [openai, { kind: 'chat' }, 'openai', 'chat-stream.sse'],
  [openai, { kind: 'responses' }, 'openai', 'responses-stream.sse'],
  [anthropic, { kind: 'messages' }, 'anthropic', 'message-stream.sse'],
  [gemini, { kind: 'generate' }, 'gemini', 'stream.sse'],
  [mistral, { kind: 'chat' }, 'mistral', 'chat-stream.sse'],
];

function read([adapter, ep]: [ProviderAdapter, Endpoint], bytes: Buffer, size: number, skim: boolean) {
  const reader = adapter.streamReader(ep, { text: false });
  const tap = skim ? sseTap(reader, false, 1 << 20) : new SseParser((e, d) => reader.onEvent(e, d), 1 << 20);
  for (let i = 0; i < bytes.length; i += size) tap.push(bytes.subarray(i, i + size));
  tap.end();
  return { usage: reader.usage(), model: reader.model(), chars: reader.chars(), text: reader.text() };
}

test('on the bytes or decoded, each provider stream gives the same usage, model and character count at every chunking', () => {
  for (const [adapter, ep, provider, file] of STREAMS) {
    const wire = fixtureText(provider, file);
    for (const [label, text] of [['LF', wire], ['CRLF', wire.replace(/\n/g, '\r\n')], ['cut before its last 40 bytes', wire.slice(0, -40)]] as const) {
      const bytes = Buffer.from(text);
      const want = read([adapter, ep], bytes, bytes.length, false);
      if (label !== 'cut before its last 40 bytes') assert.ok(want.usage, `${file} reports usage`);
      assert.ok(want.chars > 0);
      for (let size = 1; size <= 64; size++) assert.deepEqual(read([adapter, ep], bytes, size, true), want, `${file}, ${label}, chunks of ${size} bytes`);
      assert.deepEqual(read([adapter, ep], bytes, bytes.length, true), want, `${file}, ${label}, one chunk`);
    }
  }
});

test('a stream that never reports usage is estimated from the characters of its payloads, multi-byte ones counted once', () => {
  const wire = Buffer.from('data: {"choices":[{"delta":{"content":"héllo 😀"}}]}\n\ndata: {"choices":[{"delta":{"content":"wörld"}}]}\n\ndata: [DONE]\n\n');
  const m = new ResponseMeter(openai, { kind: 'chat' }, 1 << 20, { sse: true, text: false });
  for (const b of wire) m.push(Buffer.from([b]));
  const got = m.finish();
  assert.equal(got.usage, undefined);
  // The two payloads' characters as JavaScript counts them ([DONE] is not a payload).
  assert.equal(got.chars, '{"choices":[{"delta":{"content":"héllo 😀"}}]}'.length + '{"choices":[{"delta":{"content":"wörld"}}]}'.length);
});

test('mid-stream, the usage and characters so far are what reading every event gives ', () => {
  for (const [adapter, ep, provider, file] of STREAMS) {
    const bytes = Buffer.from(fixtureText(provider, file));
    // After each event, with the next one begun: progress() reads complete events only.
    for (const blank of bytes.toString('latin1').matchAll(/\r\n\r\n|\n\n/g)) {
      const complete = blank.index + blank[0].length;
      const meter = new ResponseMeter(adapter, ep, 1 << 20, { sse: true, text: false });
      meter.push(bytes.subarray(0, Math.min(bytes.length, complete + 10)));
      const want = read([adapter, ep], bytes.subarray(0, complete), complete, false);
      assert.deepEqual(meter.progress(), { usage: want.usage, chars: want.chars }, `${file} after byte ${complete}`);
    }
  }
});
