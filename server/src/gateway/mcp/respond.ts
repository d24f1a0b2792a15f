// Writes the upstream's answer to the client. JSON bodies are read up to the owner's response cap (the answer is one
// document; over the cap it becomes JSON-RPC errors `Response too large`), shaped per message and written at once.
// SSE streams are passed on event by event as they arrive, never held whole: an event nothing applies to is written
// byte for byte; one a rule changes is re-serialised with its other fields kept; one over the cap is replaced by a
// JSON-RPC error for the same id. Client backpressure pauses the upstream read.
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../../net/upstream-response.ts';
import { emitFor } from '../pipeline/run.ts';
import type { Exchange } from '../pipeline/types.ts';
import { RpcCode, RpcMsg, rpcError, type JsonRpcId, type JsonRpcMessage, type RequestInfo } from './jsonrpc.ts';
import type { Shaped, Shaper } from './shape.ts';
import { withData, SseSplitter, type SseEvent } from './sse.ts';
import { clientResponseHeaders } from '../upstream/headers.ts';
import { drained } from '../upstream/call.ts';
import { sendBody, sendJson } from '../upstream/reply.ts';

export interface RespondContext {
  x: Exchange;
  res: ServerResponse;
  shaper: Shaper;
  capBytes: number;
  batch: boolean;
  /** Requests sent upstream (their ids get the errors when the answer is too large). */
  forwarded: readonly RequestInfo[];
  /** Answers the gateway produced itself for other messages of the same POST (synthetic, batches). */
  local: JsonRpcMessage[];
}

export function isEventStream(ct: string | undefined): boolean {
  return !!ct && ct.toLowerCase().startsWith('text/event-stream');
}

export function isJson(ct: string | undefined): boolean {
  return !!ct && /^application\/([a-z0-9.+-]+\+)?json\b/i.test(ct);
}

/**
 * Upstream answered 200 with anything but an event stream: bounded read, shape, write. A body labelled otherwise
 * than JSON (or not at all) is still read as JSON-RPC, so a mislabelled answer cannot slip past the cap, the tools/list
 * filter or a redaction; one that is not JSON at all goes through as it came. Returns the outcome for the log phase.
 */
export async function respondJson(c: RespondContext, up: UpstreamResponse): Promise<'ok' | 'too_large' | 'exit'> {
  const headers = clientResponseHeaders(up.headers, true);
  const raw = isJson(up.headers['content-type'] as string | undefined) ? sendJson : sendBody;
  const declared = Number(up.headers['content-length']);
  let body: Buffer | undefined;
  if (!(declared > c.capBytes)) body = await up.readAll(c.capBytes);
  else up.destroy();
  if (!body) return tooLarge(c, headers, Number.isFinite(declared) ? declared : undefined);

  if (!c.shaper.active && !c.local.length) {
    raw(c.res, up.statusCode, body.toString('utf8'), headers);
    return 'ok';
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    raw(c.res, up.statusCode, body.toString('utf8'), headers);
    return 'ok';
  }
  const list = Array.isArray(parsed) ? parsed as JsonRpcMessage[] : [parsed as JsonRpcMessage];
  const out: JsonRpcMessage[] = [...c.local];
  for (const m of list) {
    const s = c.shaper.active ? await c.shaper.shape(m) : { kind: 'keep' } as Shaped;
    if (s.kind === 'exit') {
      sendBody(c.res, s.status, s.body, { 'content-type': contentTypeOf(s.body), ...s.headers });
      return 'exit';
    }
    out.push(s.kind === 'replace' ? s.msg : m);
  }
  const payload = JSON.stringify(Array.isArray(parsed) || c.batch ? out : out[0]);
  if (Buffer.byteLength(payload) > c.capBytes) return tooLarge(c, headers, Buffer.byteLength(payload));
  sendJson(c.res, up.statusCode, payload, headers);
  return 'ok';
}

function tooLarge(c: RespondContext, headers: Record<string, string | string[]>, bytes: number | undefined): 'too_large' {
  const errs = c.forwarded.filter((r) => r.id !== undefined).map((r) => rpcError(r.id, RpcCode.responseTooLarge, RpcMsg.responseTooLarge));
  const all = [...c.local, ...errs];
  emitFor(c.x, { type: 'error', details: { reason: 'response_too_large', cap_kb: c.capBytes / 1024, ...(bytes ? { bytes } : {}) } });
  if (!all.length) all.push(rpcError(null, RpcCode.responseTooLarge, RpcMsg.responseTooLarge));
  sendJson(c.res, 200, c.batch ? all : all[0], { ...headers, 'content-type': 'application/json' });
  return 'too_large';
}

function contentTypeOf(body: string): string {
  const t = body.trimStart();
  return t.startsWith('{') || t.startsWith('[') ? 'application/json' : 'text/plain; charset=utf-8';
}

/** Upstream answered with an event stream (POST or GET): pass it on event by event. */
export async function respondStream(c: RespondContext, up: UpstreamResponse): Promise<void> {
  const headers = clientResponseHeaders(up.headers, true);
  c.res.writeHead(up.statusCode, headers);
  c.res.flushHeaders();
  for (const m of c.local) await write(c.res, `event: message\ndata: ${JSON.stringify(m)}\n\n`);
  // A character can take up to 3 bytes; the exact byte check happens per event below.
  const splitter = new SseSplitter(c.capBytes);
  const pending = new Set(c.forwarded.filter((r) => r.id !== undefined).map((r) => r.id!));
  try {
    for await (const chunk of up.chunks()) {
      for (const ev of splitter.push(chunk)) await writeEvent(c, ev, pending);
      if (c.res.destroyed) break;
    }
    for (const ev of splitter.end()) await writeEvent(c, ev, pending);
  } finally {
    if (!c.res.destroyed) c.res.end();
    up.destroy();
  }
}

async function writeEvent(c: RespondContext, ev: SseEvent, pending: Set<JsonRpcId>): Promise<void> {
  if (ev.oversized) {
    const id = sniffId(ev.oversized.head, ev.oversized.tail) ?? (pending.size === 1 ? [...pending][0] : undefined);
    emitFor(c.x, { type: 'error', details: { reason: 'response_too_large', cap_kb: c.capBytes / 1024, stream: true } });
    if (id === undefined) return write(c.res, withData(ev, JSON.stringify(withheldNotice())));
    pending.delete(id);
    await write(c.res, withData(ev, JSON.stringify(rpcError(id, RpcCode.responseTooLarge, RpcMsg.responseTooLarge))));
    return;
  }
  const data = ev.data;
  if (data === undefined || data === '' || (!c.shaper.active && !overCap(data, c.capBytes))) {
    await write(c.res, ev.raw!);
    return;
  }
  let msg: JsonRpcMessage;
  try {
    msg = JSON.parse(data) as JsonRpcMessage;
  } catch {
    await write(c.res, ev.raw!);
    return;
  }
  if (msg.id !== undefined && msg.id !== null && msg.method === undefined) pending.delete(msg.id);
  const s = c.shaper.active ? await c.shaper.shape(msg) : { kind: 'keep' } as Shaped;
  let out: string | undefined;
  if (s.kind === 'replace') out = JSON.stringify(s.msg);
  else if (s.kind === 'exit') out = JSON.stringify(rpcError(msg.id, RpcCode.blockedByRule, s.body));
  const size = out !== undefined ? out : data;
  if (overCap(size, c.capBytes)) {
    emitFor(c.x, { type: 'error', details: { reason: 'response_too_large', cap_kb: c.capBytes / 1024, stream: true } });
    out = JSON.stringify(msg.id === undefined || msg.id === null ? withheldNotice() : rpcError(msg.id, RpcCode.responseTooLarge, RpcMsg.responseTooLarge));
  }
  await write(c.res, out === undefined ? ev.raw! : withData(ev, out));
}

/** Stands in for a notification over the cap, so the client learns that something was withheld. */
function withheldNotice(): JsonRpcMessage {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', logger: 'tollgate', data: RpcMsg.responseTooLarge } };
}

function overCap(s: string, cap: number): boolean {
  return s.length > cap || (s.length * 3 > cap && Buffer.byteLength(s) > cap);
}

/** Finds the JSON-RPC id of a message from its first and last few KB (the SDK writes `id` last). */
export function sniffId(head: string, tail: string): JsonRpcId | undefined {
  const t = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*}\s*$/.exec(tail.replace(/\s+$/, ''));
  const h = /^\s*(?:id:[^\n]*\n)*(?:event:[^\n]*\n)*data:\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(head);
  const raw = t?.[1] ?? h?.[1];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as JsonRpcId;
  } catch {
    return undefined;
  }
}

async function write(res: ServerResponse, s: string): Promise<void> {
  if (res.destroyed) return;
  if (!res.write(s)) await drained(res);
}
