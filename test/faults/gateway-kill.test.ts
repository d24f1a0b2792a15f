// A gateway process stopped in the middle of a stream (docs/faults.md, "A gateway that dies"): real
// `tollgate serve --role gateway` processes on a PostgreSQL and a redis-server of the test's own, with the API in
// this process. What is guaranteed, and tested here:
//   - SIGTERM: an LLM stream in flight runs to its end (the drain, up to 20 s), is charged once (usage row, budget
//     window in Redis and PostgreSQL) and has one outcome event; an MCP stream is cut, its waiting request gets a
//     JSON-RPC error saying the gateway is shutting down, and it keeps its one outcome event.
//   - SIGKILL: nothing is written twice, and nothing delivered is lost. An LLM stream's progress is recorded about
//     once a second (here every 100 ms); a new gateway finds the record of the killed one's stream once it is stale
//     (here after 1.5 s) and charges what it says was delivered, once (usage row, durable and hot budget window), with
//     one outcome event (`error`, reason `gateway_lost`), and gives back the dead gateway's budget reservation. An MCP
//     stream's outcome event is recorded when the stream starts, so it has exactly one once it was written (it was
//     here: the test waits for it). Requests that finished and were written before the kill count once, also after a
//     new gateway takes over.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChildGateway, type ChildGateway } from '@tollgate/testkit/child-gateway.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { must, newIsolation, startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { createKey, rawSession } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { windowAt } from '../../server/src/budgets/windows.ts';
import { PrivatePostgres, PrivateRedis, postgresMissing, redisMissing } from './datastores.ts';

const skip = redisMissing ?? postgresMissing ?? false;

let redis: PrivateRedis;
let pgsql: PrivatePostgres;
let api: TestApp;
let user: TestUser;
let up: McpUpstream;
let fake: FakeProvider;
let env: Record<string, string>;
const iso = newIsolation();
const gateways: ChildGateway[] = [];

before(async () => {
  if (skip) return;
  [redis, pgsql] = await Promise.all([PrivateRedis.start(), PrivatePostgres.start()]);
  fake = await startFakeProvider('openai');
  up = await startMcpUpstream();
  env = {
    DATABASE_URL: pgsql.url, REDIS_URL: redis.url, TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url,
    TOLLGATE_STREAM_CHECKPOINT_MS: '100', TOLLGATE_STREAM_ORPHAN_MS: '1500',
  };
  api = await startTestApp({ isolation: iso, role: 'api', env });
  user = await api.createUser();
});

after(async () => {
  if (skip) return;
  for (const g of gateways) g.child.kill('SIGKILL');
  await api?.close();
  await up?.close();
  await fake?.close();
  await redis?.close();
  await pgsql?.close();
});

async function gateway(): Promise<ChildGateway> {
  const g = await startChildGateway(iso, env);
  gateways.push(g);
  return g;
}

const exited = (g: ChildGateway) => new Promise<void>((resolve) => {
  if (g.child.exitCode !== null || g.child.signalCode !== null) resolve();
  else g.child.once('exit', () => resolve());
});

/**
 * A streaming request read as it arrives: `events(n)` resolves once n SSE events came, `done` with the whole text
 * and whether the connection was cut before the stream's end.
 */
function stream(url: string, init: RequestInit) {
  let text = '';
  let count = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const done = (async () => {
    let cut = false;
    try {
      const res = await fetch(url, init);
      const reader = res.body!.getReader();
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        text += Buffer.from(value).toString('utf8');
        count = text.split('\n\n').length - 1;
        for (const w of waiters.filter((x) => count >= x.n)) w.resolve();
      }
    } catch {
      cut = true;
    }
    return { text, cut };
  })();
  return {
    done,
    events: (n: number) => new Promise<void>((resolve, reject) => {
      if (count >= n) resolve();
      else waiters.push({ n, resolve });
      void done.then(() => reject(new Error(`the stream ended after ${count} events, before ${n}`)));
    }),
  };
}

// The provider streams 30 chunks 100 ms apart, then the usage: 10 prompt and 30 completion tokens of o1
// = (10 × 15 + 30 × 60) / 1e6 USD = 0.195 cents.
const COST_MICRO = 195_000;
async function slowStream(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (let i = 0; i < 30 && !res.destroyed; i++) {
    res.write(`data: {"id":"c","object":"chat.completion.chunk","model":"o1","choices":[{"index":0,"delta":{"content":"w${i} "}}]}\n\n`);
    await sleep(100);
  }
  res.end('data: {"id":"c","object":"chat.completion.chunk","model":"o1","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":30}}\n\ndata: [DONE]\n\n');
}

async function llmState(llmId: string) {
  const db = api.app.services.db;
  const [u] = await db.query<{ requests: number; cost: number }>('SELECT coalesce(sum(requests), 0)::int AS requests, coalesce(sum(cost_micro_cents), 0)::bigint AS cost FROM llm_usage_daily WHERE llm_id = $1', [llmId]);
  const events = await db.query<{ event_type: string }>('SELECT event_type FROM audit_events WHERE llm_uuid = $1', [llmId]);
  const [w] = await db.query<{ spent: number }>(`SELECT coalesce(sum(spent_micro_cents), 0)::bigint AS spent FROM llm_spend_windows WHERE llm_id = $1 AND scope = 'proxy'`, [llmId]);
  const hot = await api.app.services.state.getNumber(`budget:${llmId}:proxy:w:${windowAt('daily', Date.now()).tag}`);
  const reserved = await api.app.services.state.getNumber(`budget:${llmId}:proxy:r`);
  return { requests: u!.requests, cost: Number(u!.cost), events: events.map((e) => e.event_type).sort(), durable: Number(w!.spent), hot: hot - 1, reserved };
}

type Checkpoint = { id: string; recovered_ms: string | null; record: { costMicro: number; usage: { inputTokens: number; outputTokens: number }; estimated: boolean } };
const checkpoints = (llmId: string) => api.app.services.db.query<Checkpoint>('SELECT id, recovered_ms, record FROM llm_stream_checkpoints WHERE llm_id = $1', [llmId]);

test('LLM: a stream in flight when its gateway gets SIGTERM finishes and is charged once; one SIGKILLed midway is charged once for what it delivered', { skip }, async () => {
  const client = api.client(user.pat);
  const { id: llmId } = must(await client.call('POST /api/llm', { body: { name: 'streams', provider: 'openai', providerKey: fake.providerKey, budget: { period: 'daily', capUsd: 10, hardBlock: true } } }));
  const key = must(await client.call('POST /api/keys', { body: { name: 'streams', llmPermissions: [{ id: llmId, models: ['*'] }] } })).key.key;
  fake.override = async (_r, res) => { await slowStream(res); return true; };
  const start = (g: ChildGateway) => stream(`${g.url}/${llmId}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'o1', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });

  // SIGTERM in the middle of a stream: the stream runs to its end, then the gateway writes its accounting and exits.
  const a = await gateway();
  const s1 = start(a);
  await s1.events(5);
  a.child.kill('SIGTERM');
  const r1 = await s1.done;
  assert.equal(r1.cut, false);
  assert.match(r1.text, /"w29 "[\s\S]*\[DONE\]/, 'the whole stream reached the client');
  await exited(a);
  assert.equal(a.child.exitCode, 0);
  assert.deepEqual(await llmState(llmId), { requests: 1, cost: COST_MICRO, events: ['allow'], durable: COST_MICRO, hot: COST_MICRO, reserved: 0 }, 'charged once everywhere after the drain');
  assert.deepEqual(await checkpoints(llmId), [], 'the drained stream\'s record was deleted with its accounting');

  // SIGKILL in the middle of a stream: the client's connection is cut; the stream's last record stays behind.
  const b = await gateway();
  const s2 = start(b);
  await s2.events(8);
  await eventually(async () => (await checkpoints(llmId)).some((c) => c.record.usage.outputTokens > 0), { what: 'a record of the stream with output' });
  b.child.kill('SIGKILL');
  const r2 = await s2.done;
  assert.ok(r2.cut || !/\[DONE\]/.test(r2.text), 'the client saw the stream end early');
  await exited(b);
  const [left, ...more] = await checkpoints(llmId);
  assert.ok(left && !more.length && left.recovered_ms === null, 'one record of the killed stream, not yet recovered');
  const delivered = left.record.costMicro;
  assert.ok(delivered > 0 && left.record.estimated, 'the delivered part is priced (estimated: the usage comes at the end of a stream)');
  assert.ok((await llmState(llmId)).reserved > 0, 'the killed gateway still holds its reservation');

  // A new gateway charges the killed stream once, with one outcome event, and accounts its own requests.
  const c = await gateway();
  await eventually(async () => (await llmState(llmId)).requests === 2, { what: 'the killed stream charged by the new gateway', timeoutMs: 15_000 });
  assert.deepEqual(await llmState(llmId), { requests: 2, cost: COST_MICRO + delivered, events: ['allow', 'error'], durable: COST_MICRO + delivered, hot: COST_MICRO + delivered, reserved: 0 });
  const [lost] = await api.app.services.db.query<{ details: Record<string, unknown> }>(`SELECT details FROM audit_events WHERE llm_uuid = $1 AND event_type = 'error'`, [llmId]);
  assert.equal(lost!.details.reason, 'gateway_lost');
  assert.equal(lost!.details.output_tokens, left.record.usage.outputTokens);
  const s3 = start(c);
  const r3 = await s3.done;
  assert.match(r3.text, /\[DONE\]/);
  await eventually(async () => (await llmState(llmId)).requests === 3, { what: 'the new gateway\'s request written' });
  await sleep(3000); // two recovery sweeps and many accounting intervals: anything else would have been written by now
  assert.deepEqual(await llmState(llmId), {
    requests: 3, cost: 2 * COST_MICRO + delivered, events: ['allow', 'allow', 'error'], durable: 2 * COST_MICRO + delivered, hot: 2 * COST_MICRO + delivered, reserved: 0,
  });
  assert.equal((await checkpoints(llmId)).filter((x) => x.recovered_ms === null).length, 0, 'no record left to recover');
  c.child.kill('SIGTERM');
  await exited(c);
  fake.override = undefined;
});

test('MCP: a stream cut by SIGTERM answers its waiting request with an error; SIGKILL leaves its one outcome event, never two', { skip }, async () => {
  const client = api.client(user.pat);
  const { id } = must(await client.call('POST /api/mcp', { body: { name: 'streams', url: up.url } })).server;
  const p = { id, user, pathUrl: '', hostUrl: '' };
  must(await client.call('POST /api/mcp/:id/tools', { params: { id } }));
  const key = await createKey(api, p);
  const events = async () => (await api.app.services.db.query<{ event_type: string; details: Record<string, unknown> }>('SELECT event_type, details FROM audit_events WHERE mcp_uuid = $1 ORDER BY id', [p.id]));
  const slowCall = async (g: ChildGateway) => {
    const url = `${g.url}/${p.id}/`;
    const sid = await rawSession(url, key); // one allow (initialize); the notification records none
    return stream(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: { steps: 40, delayMs: 100 } } }),
    });
  };

  // SIGTERM: MCP streams are cut at once; the waiting call gets an error instead of silence.
  const a = await gateway();
  const s1 = await slowCall(a);
  await s1.events(3);
  a.child.kill('SIGTERM');
  const r1 = await s1.done;
  await exited(a);
  const last = r1.text.trim().split('\n\n').at(-1)!;
  assert.deepEqual(JSON.parse(last.slice(last.indexOf('data:') + 5)), { jsonrpc: '2.0', id: 7, error: { code: -32005, message: 'Gateway is shutting down' } });
  const afterTerm = await events();
  assert.deepEqual(afterTerm.map((e) => [e.event_type, e.details.reason ?? e.details.method]), [['allow', 'initialize'], ['allow', 'tools/call'], ['stream_error', 'gateway_stopping']], 'one outcome per request, and the cut recorded');

  // SIGKILL once the stream's outcome event is written: it stays the only one.
  const b = await gateway();
  const s2 = await slowCall(b);
  await s2.events(3);
  await eventually(async () => (await events()).length === afterTerm.length + 2, { what: 'the stream\'s allow event written' });
  b.child.kill('SIGKILL');
  const r2 = await s2.done;
  assert.ok(!r2.text.includes('"result"'), 'the call never completed');
  await exited(b);
  const c = await gateway();
  const s3 = await slowCall(c);
  await s3.events(1);
  await eventually(async () => (await events()).length === afterTerm.length + 4, { what: 'the new gateway\'s events written' });
  await sleep(600);
  const all = await events();
  assert.deepEqual(all.slice(afterTerm.length).map((e) => [e.event_type, e.details.method]), [['allow', 'initialize'], ['allow', 'tools/call'], ['allow', 'initialize'], ['allow', 'tools/call']], 'each request once, the killed stream included, nothing twice');
  c.child.kill('SIGKILL');
});
