import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeExchange, fakeWorld } from '@tollgate/testkit/exchange.ts';
import { responseReplaceSchema } from '@tollgate/contract';
import { buildResponseReplace } from './handler.ts';
import { cpuMsAsync } from '@tollgate/testkit/cpu-time.ts';

function build(r: Record<string, unknown>) {
  const w = fakeWorld();
  const [h] = buildResponseReplace([{ rule: responseReplaceSchema.parse({ rule_type: 'response_replace', tools: ['*'], replacement: '', ...r }), index: 3 }]);
  return { h: h!, w, x: fakeExchange(w) };
}

test('replaces in every string of a result, with $0..$9, keeps the JSON shape and counts matches', async () => {
  const { h, w, x } = build({ pattern: '(\\w+)@(\\w+)\\.com', replacement: '<$1 at $2 / $0>' });
  const msg = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a@b.com and c@d.com' }], structuredContent: { n: 3, who: 'e@f.com' } } };
  const o = await h.onMessage!({ x, tool: 't', method: 'tools/call' }, msg);
  assert.equal(o.kind, 'replace');
  assert.deepEqual(o.kind === 'replace' && o.msg.result, { content: [{ type: 'text', text: '<a at b / a@b.com> and <c at d / c@d.com>' }], structuredContent: { n: 3, who: '<e at f / e@f.com>' } });
  assert.equal(w.events[0]!.eventType, 'dlp_match');
  assert.equal(w.events[0]!.details!.matches, 3);
  assert.deepEqual(msg.result.content[0], { type: 'text', text: 'a@b.com and c@d.com' }, 'the input is not mutated');
});

test('flags i, s and m; an empty replacement drops matches', async () => {
  const i = build({ pattern: 'secret', regex_flags: 'i' });
  const o1 = await i.h.onMessage!({ x: i.x, tool: 't', method: 'tools/call' }, { id: 1, result: { t: 'SeCrEt!' } });
  assert.deepEqual(o1.kind === 'replace' && o1.msg.result, { t: '!' });
  const s = build({ pattern: 'a.b', regex_flags: 's', replacement: 'X' });
  const o2 = await s.h.onMessage!({ x: s.x, tool: 't', method: 'tools/call' }, { id: 1, result: { t: 'a\nb' } });
  assert.deepEqual(o2.kind === 'replace' && o2.msg.result, { t: 'X' });
  const m = build({ pattern: '^x$', regex_flags: 'm', replacement: 'Y' });
  const o3 = await m.h.onMessage!({ x: m.x, tool: 't', method: 'tools/call' }, { id: 1, result: { t: 'a\nx\nb' } });
  assert.deepEqual(o3.kind === 'replace' && o3.msg.result, { t: 'a\nY\nb' });
});

test('applies to tool results and notifications of its tools, not to protocol answers such as tools/list', async () => {
  const { h, x } = build({ pattern: 'x', replacement: 'y', tools: ['only'] });
  const msg = { id: 1, result: { t: 'x' } };
  assert.equal((await h.onMessage!({ x, tool: 'other', method: 'tools/call' }, msg)).kind, 'keep');
  assert.equal((await h.onMessage!({ x, tool: 'only', method: 'tools/call' }, msg)).kind, 'replace');
  assert.equal((await h.onMessage!({ x, tool: 'only', method: undefined }, { method: 'notifications/message', params: { data: 'x' } })).kind, 'replace');
  const all = build({ pattern: 'x', replacement: 'y' });
  assert.equal((await all.h.onMessage!({ x: all.x, method: 'tools/list' }, { id: 1, result: { tools: [{ name: 'x' }] } })).kind, 'keep');
});

test('a catastrophic pattern runs in linear time', async () => {
  const { h, x } = build({ pattern: '(a+)+$', replacement: 'Z' });
  const text = 'a'.repeat(200_000) + 'b';
  const { value: o, ms } = await cpuMsAsync(async () => h.onMessage!({ x, tool: 't', method: 'tools/call' }, { id: 1, result: { t: text } }));
  assert.ok(ms < 1000, `${ms} ms`);
  assert.equal(o.kind, 'keep');
});
