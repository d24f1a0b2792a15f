// The lambdas of one request share one budget (gateway/lua/budget.ts RequestBudget, 8,000,000 instructions and 200 ms
// by default) on top of each call's own. Through the gateway: a proxy whose lambdas each stay within their own budget
// but together exceed the request's fails closed like a single lambda over its budget (a lambda_error naming the
// reason; JSON-RPC -32002 on MCP, HTTP 500 on LLM), the access lambdas and the response lambdas of one batch alike,
// and the next request starts with a full budget.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { createKey, createProxy, INIT, putRules, rawPost, rawSession, sseMessages } from '@tollgate/testkit/mcp-kit.ts';
import { createLlmKey, createLlmProxy, putLlmRules, rawLlm, startLlmEnv, type LlmEnv } from '@tollgate/testkit/llm-kit.ts';

let e: LlmEnv;
let up: McpUpstream;

before(async () => {
  e = await startLlmEnv();
  up = await startMcpUpstream({ json: true });
});
after(async () => {
  await up.close();
  await e.close();
});

/**
 * A lambda that charges 1,900,000 instructions (below its own 2,000,000) in one library call: table.remove is charged
 * by the table's length before it runs, and __len makes that length free. Four fit the request budget, the fifth does
 * not, whatever the machine's speed (a loop would meet the 50 ms time budget first on a slow machine).
 */
const heavy = (name: string, phase: 'access' | 'response' = 'access') => ({
  rule_type: 'lambda', tools: ['*'], phase, name,
  lua_code: 'svc.table.remove(setmetatable({}, { __len = function() return 1900000 end }))',
});
const heavies = (n: number) => Array.from({ length: n }, (_, i) => heavy(`heavy${i + 1}`));
const REASON = /^lambda exceeded the request's lambda budget \(8000000 instructions for all lambdas of one request\)$/;

interface Event { [k: string]: unknown; event_type: string; rule_name: string | null; details: Record<string, unknown> }

async function eventsOf(proxyId: string): Promise<Event[]> {
  await e.t.flush();
  return e.t.app.services.db.query<Event>(
    'SELECT event_type, rule_name, details FROM audit_events WHERE mcp_uuid = $1 OR llm_uuid = $1 ORDER BY id', [proxyId]);
}

/**
 * Sends a request and returns its answer with the events it caused. A call stopped by its own 50 ms clock says only
 * that the machine paused the process (a loaded CI host can), not what the instructions added up to: such an attempt
 * is sent again, a few times at most.
 */
async function send<T>(proxyId: string, request: () => Promise<T>): Promise<{ answer: T; events: Event[] }> {
  for (let attempt = 1; ; attempt++) {
    const seen = (await eventsOf(proxyId)).length;
    const answer = await request();
    const events = (await eventsOf(proxyId)).slice(seen);
    if (attempt === 5 || !events.some((ev) => /its time budget/.test(String(ev.details.error)))) return { answer, events };
  }
}

test('MCP: access lambdas within their own budgets but over the request\'s together fail closed at the one that crosses it', async () => {
  const p = await createProxy(e.t, e.user, up.url);
  const key = await createKey(e.t, p);
  const init = () => rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });

  await putRules(e.t, p, heavies(4));
  const fits = (await send(p.id, init)).answer;
  assert.equal(fits.status, 200, fits.text);
  assert.ok(fits.json?.result?.serverInfo, fits.text.slice(0, 300));

  await putRules(e.t, p, heavies(5));
  for (let i = 0; i < 2; i++) { // the second request fails at the same lambda: the budget is per request
    const { answer: r, events } = await send(p.id, init);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json?.error, { code: -32002, message: 'Request blocked: lambda rule "heavy5" failed' });
    assert.deepEqual(events.map((ev) => [ev.event_type, ev.rule_name, ev.details.phase]), [['lambda_error', 'heavy5', 'access']]);
    assert.match(String(events[0]!.details.error), REASON);
  }
});

test('MCP: the response lambda of a batch runs once per answer, all on one budget; the answers past it fail closed', async () => {
  const p = await createProxy(e.t, e.user, up.url);
  const key = await createKey(e.t, p);
  await putRules(e.t, p, [heavy('per-answer', 'response')]);
  const sid = await rawSession(p.pathUrl, key);
  const calls = Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'echo', arguments: { text: `t${i}` } } }));
  const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26' };
  const { answer: r, events } = await send(p.id, () => rawPost(p.pathUrl, calls, headers));
  assert.equal(r.status, 200, r.text);
  const answers = (r.json ?? sseMessages(r.text)) as Array<{ id: number; result?: unknown; error?: { code: number; message: string } }>;
  assert.equal(answers.length, 6, r.text.slice(0, 500));
  assert.equal(answers.filter((a) => a.result).length, 4, r.text.slice(0, 500));
  assert.deepEqual(answers.filter((a) => a.error).map((a) => a.error), Array(2).fill({ code: -32002, message: 'Request blocked: lambda rule "per-answer" failed' }));
  // The first failure is the request's outcome, the second a detail of the same answer; both name the request budget.
  const failures = events.filter((ev) => ev.rule_name === 'per-answer');
  assert.deepEqual(failures.map((ev) => ev.event_type), ['lambda_error', 'stream_error']);
  for (const ev of failures) assert.match(String(ev.details.error), REASON);
});

test('LLM: access lambdas over the request\'s budget together are refused with 500 and never reach the provider', async () => {
  const p = await createLlmProxy(e, 'openai');
  const k = await createLlmKey(e, p);
  const chat = () => rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${k.key}` });

  await putLlmRules(e, p, heavies(4));
  const fits = (await send(p.id, chat)).answer;
  assert.equal(fits.status, 200, fits.text);

  await putLlmRules(e, p, heavies(5));
  const sent = p.fake.received.length;
  const { answer: r, events } = await send(p.id, chat);
  assert.deepEqual([r.status, r.json], [500, { error: 'Request blocked: lambda rule "heavy5" failed' }], r.text);
  assert.equal(p.fake.received.length, sent);
  assert.deepEqual(events.map((ev) => [ev.event_type, ev.rule_name]), [['lambda_error', 'heavy5']]);
  assert.match(String(events[0]!.details.error), REASON);
});
