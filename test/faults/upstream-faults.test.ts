// Upstreams that misbehave (docs/faults.md, "Upstreams"): an MCP server and an LLM provider that reset the connection
// before or in the middle of their answer, stall before or in the middle of it, answer slowly (under the timeout),
// send a body labelled JSON that is not JSON, or a malformed or oversized SSE event. Each gets the client a clear
// answer (the documented status and message, or a JSON-RPC error inside the stream), the request exactly one outcome
// event, and leaves no socket behind in the gateway: after each fault the gateway holds at most its one kept-alive
// connection per pool to the upstream, and the upstream sees no more connections than that.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { chartBucket } from '../../server/src/gateway/event-types.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { must, startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { createKey, rawPost } from '@tollgate/testkit/mcp-kit.ts';

const TIMEOUT_MS = 800;

type Mode = 'reset_before_headers' | 'reset_mid_body' | 'stall_before_headers' | 'stall_mid_body' | 'slow' | 'malformed_json'
  | 'reset_mid_sse' | 'malformed_sse' | 'oversized_notification';

let mode: Mode = 'slow';
let upstream: Server;
let port = 0;
const upstreamSockets = new Set<Socket>();
let t: TestApp;
let user: TestUser;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c: Buffer) => { s += c; });
    req.on('end', () => resolve(s));
  });
}

const completion = (text: string) => JSON.stringify({ id: 'c', object: 'chat.completion', model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5 } });
const chunk = (text: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: text } }] })}\n\n`;

/** One upstream for both kinds: `/mcp` speaks JSON-RPC, `/v1/chat/completions` the OpenAI format; `mode` picks the fault. */
async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const text = await body(req);
  const llm = req.url!.startsWith('/v1/');
  const id = llm ? 0 : (JSON.parse(text) as { id: number }).id;
  const result = llm ? completion('fine') : JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'fine' }] } });
  const a: Answer = { req, res, llm, result };
  return SSE_MODES.has(mode) ? answerSse(a) : answerPlain(a);
}

interface Answer { req: IncomingMessage; res: ServerResponse; llm: boolean; result: string }

const SSE_MODES: ReadonlySet<Mode> = new Set<Mode>(['reset_mid_sse', 'malformed_sse', 'oversized_notification']);

/** Faults of a plain JSON answer: before the headers, mid-body, late, or malformed. */
async function answerPlain({ req, res, result }: Answer): Promise<void> {
  switch (mode) {
    case 'reset_before_headers':
      return void req.socket.resetAndDestroy();
    case 'stall_before_headers':
      return; // never answers; the connection stays open
    case 'reset_mid_body':
    case 'stall_mid_body':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(result.length + 100) });
      res.write(result.slice(0, 20));
      if (mode === 'reset_mid_body') setTimeout(() => req.socket.resetAndDestroy(), 50);
      return;
    case 'slow':
      await sleep(TIMEOUT_MS / 2);
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(result);
    case 'malformed_json':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(result.slice(0, -7));
  }
}

/** Faults of an event-stream answer (MCP's SSE or the OpenAI stream). */
async function answerSse({ req, res, llm, result }: Answer): Promise<void> {
  const sse = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
  switch (mode) {
    case 'reset_mid_sse':
      res.writeHead(200, sse);
      res.write(llm ? chunk('Hel') : `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } })}\n\n`);
      setTimeout(() => req.socket.resetAndDestroy(), 50);
      return;
    case 'malformed_sse':
      res.writeHead(200, sse);
      res.write(llm ? 'data: {"id":"c","choices":[{"delta":{"content":"Hel\n\n' : 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/mess\n\n');
      return void res.end(llm ? `${chunk('lo')}data: [DONE]\n\n` : `event: message\ndata: ${result}\n\n`);
    case 'oversized_notification': {
      // A 600 KB log message (the default response cap is 512 KB), written in pieces as a real server's socket would.
      res.writeHead(200, sse);
      const big = `event: message\ndata: ${JSON.stringify({ method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(600 * 1024) }, jsonrpc: '2.0' })}\n\n`;
      for (let i = 0; i < big.length; i += 64 * 1024) {
        res.write(big.slice(i, i + 64 * 1024));
        await sleep(5);
      }
      return void res.end(`event: message\ndata: ${result}\n\n`);
    }
  }
}

before(async () => {
  upstream = createServer((req, res) => void answer(req, res));
  upstream.on('connection', (s: Socket) => {
    upstreamSockets.add(s);
    s.on('close', () => upstreamSockets.delete(s));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  port = (upstream.address() as AddressInfo).port;
  t = await startTestApp({ env: { TOLLGATE_MCP_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS), TOLLGATE_LLM_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS), TOLLGATE_PROVIDER_BASE_URL_OPENAI: `http://127.0.0.1:${port}` } });
  user = await t.createUser();
});

after(async () => {
  await t?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

/** The global process, with Node's undocumented list of what keeps it alive (sockets among them), which @types/node leaves out. */
declare const process: NodeJS.Process & { _getActiveHandles(): unknown[] };

/** Sockets of this process (the gateway runs in it) connected to the fault upstream. */
function gatewaySockets(): number {
  const handles = process._getActiveHandles();
  return handles.filter((h) => h instanceof Socket && h.remotePort === port && !h.destroyed).length;
}

/** After a fault the gateway keeps at most one idle connection per pool (MCP proxy, LLM provider), and nothing else. */
async function noLeakedSockets(what: string): Promise<void> {
  await eventually(() => gatewaySockets() <= 2 && upstreamSockets.size <= 2, { what: `${what}: sockets released (gateway ${gatewaySockets()}, upstream ${upstreamSockets.size})`, timeoutMs: 5000 });
}

/** Events written since `from` for a proxy; every request must have exactly one outcome among them. */
async function eventsSince(column: 'mcp_uuid' | 'llm_uuid', id: string, from: number) {
  await t.flush();
  const rows = await t.app.services.db.query<{ id: number; event_type: string; details: Record<string, unknown> }>(`SELECT id, event_type, details FROM audit_events WHERE ${column} = $1 AND id > $2 ORDER BY id`, [id, from]);
  return rows;
}
const lastEventId = async () => Number((await t.app.services.db.query<{ id: number | null }>('SELECT max(id) AS id FROM audit_events'))[0]!.id ?? 0);

function outcome(rows: Array<{ event_type: string; details: Record<string, unknown> }>, what: string) {
  const outcomes = rows.filter((r) => chartBucket(r.event_type) !== 'info');
  assert.equal(outcomes.length, 1, `${what}: one outcome event (${rows.map((r) => `${r.event_type}:${String(r.details.reason ?? '')}`).join(', ')})`);
  return { type: outcomes[0]!.event_type, reason: outcomes[0]!.details.reason, details: outcomes[0]!.details, all: rows };
}

function sseData(text: string): string[] {
  return text.split('\n\n').map((e) => e.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n')).filter(Boolean);
}

test('MCP upstream faults: clear errors, one outcome event each, no socket left behind', async () => {
  const { id } = must(await t.client(user.pat).call('POST /api/mcp', { body: { name: 'faulty', url: `http://127.0.0.1:${port}/mcp` } })).server;
  const key = await createKey(t, { id, user, pathUrl: '', hostUrl: '' });
  let n = 0;
  const call = () => rawPost(`${t.gateway}/${id}/`, { jsonrpc: '2.0', id: ++n, method: 'tools/call', params: { name: 'work', arguments: {} } }, { authorization: `Bearer ${key}` });
  const cases: Array<[Mode, (res: Awaited<ReturnType<typeof call>>) => void, string, unknown]> = [
    ['reset_before_headers', (res) => assert.deepEqual([res.status, res.json], [502, { error: 'Upstream MCP server unreachable' }]), 'error', 'upstream_unreachable'],
    ['reset_mid_body', (res) => assert.deepEqual([res.status, res.json], [502, { error: 'Upstream MCP server broke off its answer' }]), 'error', 'upstream_broken'],
    ['stall_before_headers', (res) => assert.deepEqual([res.status, res.json], [504, { error: 'Upstream MCP server timed out' }]), 'error', 'upstream_timeout'],
    ['stall_mid_body', (res) => assert.deepEqual([res.status, res.json], [504, { error: 'Upstream MCP server timed out' }]), 'error', 'upstream_timeout'],
    ['slow', (res) => assert.deepEqual([res.status, res.json.result.content[0].text], [200, 'fine']), 'allow', undefined],
    ['malformed_json', (res) => assert.deepEqual([res.status, res.json], [502, { error: 'Upstream MCP server sent an invalid JSON answer' }]), 'error', 'upstream_invalid_response'],
    ['reset_mid_sse', (res) => {
      assert.equal(res.status, 200);
      const msgs = sseData(res.text).map((d) => JSON.parse(d) as { method?: string; id?: number; error?: { code: number; message: string } });
      assert.equal(msgs[0]!.method, 'notifications/message', 'what came before the break reached the client');
      assert.deepEqual(msgs[1], { jsonrpc: '2.0', id: n, error: { code: -32005, message: 'Upstream MCP server broke off its answer' } }, 'the waiting request gets an error');
    }, 'allow', undefined],
    ['malformed_sse', (res) => {
      assert.equal(res.status, 200);
      const data = sseData(res.text);
      assert.equal(data[0], '{"jsonrpc":"2.0","method":"notifications/mess', 'an event that is not JSON passes as it came');
      assert.equal(JSON.parse(data[1]!).result.content[0].text, 'fine', 'and the answer after it arrives');
    }, 'allow', undefined],
    ['oversized_notification', (res) => {
      assert.equal(res.status, 200);
      const msgs = sseData(res.text).map((d) => JSON.parse(d) as { method?: string; params?: { level: string; data: string }; result?: { content: Array<{ text: string }> }; error?: unknown });
      assert.equal(msgs.length, 2);
      assert.deepEqual([msgs[0]!.method, msgs[0]!.params!.level], ['notifications/message', 'error']);
      assert.equal(msgs[0]!.params!.data, 'Response too large: a notifications/message message from the upstream was over the 512 KB response cap and was withheld');
      assert.equal(msgs[1]!.error, undefined, 'the request itself is not failed by the notification');
      assert.equal(msgs[1]!.result!.content[0]!.text, 'fine');
    }, 'allow', undefined],
  ];
  for (const [m, check, type, reason] of cases) {
    mode = m;
    const from = await lastEventId();
    const started = Date.now();
    const res = await call();
    assert.ok(Date.now() - started < TIMEOUT_MS * 4, `${m}: answered in ${Date.now() - started} ms`);
    check(res);
    const o = outcome(await eventsSince('mcp_uuid', id, from), m);
    assert.deepEqual([o.type, o.reason], [type, reason], m);
    if (m === 'reset_mid_sse') assert.ok(o.all.some((e) => e.event_type === 'stream_error' && e.details.reason === 'upstream_broken'), 'the break is recorded as a detail');
    if (m === 'oversized_notification') assert.ok(o.all.some((e) => e.event_type === 'stream_error' && e.details.reason === 'response_too_large'));
    await noLeakedSockets(m);
  }
});

test('LLM upstream faults: clear errors, one outcome event each, no socket left behind', async () => {
  const api = t.client(user.pat);
  const { id } = must(await api.call('POST /api/llm', { body: { name: 'faulty', provider: 'openai', providerKey: 'sk-test' } }));
  const key = must(await api.call('POST /api/keys', { body: { name: 'faulty', llmPermissions: [{ id, models: ['*'] }] } })).key.key;
  const send = async (stream: boolean) => {
    const res = await fetch(`${t.gateway}/${id}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] }),
    }).catch((err: Error) => err);
    if (res instanceof Error) return { status: 0, text: '', cut: true };
    const text = await res.text().then((s) => ({ s, cut: false }), () => ({ s: '', cut: true }));
    return { status: res.status, text: text.s, cut: text.cut };
  };
  type Res = Awaited<ReturnType<typeof send>>;
  const cut = (res: Res) => assert.ok(res.cut || res.status === 0, `the client's connection is cut, not a short answer that looks complete (${res.status})`);
  const cases: Array<[Mode, boolean, (res: Res) => void, string, unknown]> = [
    ['reset_before_headers', false, (res) => assert.deepEqual([res.status, JSON.parse(res.text)], [502, { error: 'Upstream unreachable' }]), 'error', 'upstream_unreachable'],
    ['reset_mid_body', false, cut, 'error', 'upstream_broken'],
    ['stall_before_headers', false, (res) => assert.deepEqual([res.status, JSON.parse(res.text)], [504, { error: 'Upstream timed out' }]), 'error', 'upstream_timeout'],
    ['stall_mid_body', false, cut, 'error', 'upstream_timeout'],
    ['slow', false, (res) => assert.equal(res.status, 200), 'allow', undefined],
    ['malformed_json', false, (res) => assert.deepEqual([res.status, res.text], [200, completion('fine').slice(0, -7)], 'relayed as it came (LLM answers are never changed)'), 'error', 'upstream_invalid_response'],
    ['reset_mid_sse', true, cut, 'error', 'upstream_broken'],
    ['malformed_sse', true, (res) => { assert.equal(res.status, 200); assert.match(res.text, /\[DONE\]/); }, 'allow', undefined],
  ];
  for (const [m, stream, check, type, reason] of cases) {
    mode = m;
    const from = await lastEventId();
    const started = Date.now();
    const res = await send(stream);
    assert.ok(Date.now() - started < TIMEOUT_MS * 4, `${m}: answered in ${Date.now() - started} ms`);
    check(res);
    const o = outcome(await eventsSince('llm_uuid', id, from), m);
    assert.deepEqual([o.type, o.reason], [type, reason], m);
    // An answer that started is charged for what came, by estimate when its usage could not be read.
    if (m === 'malformed_json' || m === 'malformed_sse') assert.equal(o.details.estimated, true, m);
    await noLeakedSockets(m);
  }
});
