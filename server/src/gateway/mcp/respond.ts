// Writes the upstream's answer to the client. JSON bodies are read up to the owner's response cap (the answer is one
// document; over the cap it becomes JSON-RPC errors `Response too large`), shaped per message and written at once;
// a body that stops midway, does not arrive within the upstream timeout or is labelled JSON without being JSON gets
// the client a 502/504 instead. SSE streams are passed on event by event as they arrive, never held whole: an event
// nothing applies to is written byte for byte; one a rule changes is re-serialised with its other fields kept; a
// response over the cap is replaced by a JSON-RPC error for the same id, a notification or server request over it by
// an error-level log message; a stream that breaks off answers the requests still waiting with a JSON-RPC error.
// Client backpressure pauses the upstream read.
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../../net/upstream-response.ts';
import { emitFor } from '../pipeline/run.ts';
import type { Exchange } from '../pipeline/types.ts';
import { RpcCode, RpcMsg, rpcError, type JsonRpcId, type JsonRpcMessage, type RequestInfo } from './jsonrpc.ts';
import { McpMsg } from './messages.ts';
import type { Shaped, Shaper } from './shape.ts';
import { withData, SseSplitter, type SseEvent } from '../upstream/sse.ts';
import { clientResponseHeaders } from '../upstream/headers.ts';
import { drained } from '../upstream/call.ts';
import { sendBody, sendError, sendJson } from '../upstream/reply.ts';
import { GatewayStopping } from '../upstream/pool.ts';

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

/** How a JSON answer went: written (`ok`), replaced by errors, answered by a rule, or the client left first. */
export type JsonOutcome = 'ok' | 'too_large' | 'exit' | 'failed' | 'client_gone';

/**
 * Upstream answered 200 with anything but an event stream: bounded read, shape, write. A body labelled otherwise
 * than JSON (or not at all) is still read as JSON-RPC, so a mislabelled answer cannot slip past the cap, the tools/list
 * filter or a redaction; one that is not JSON at all goes through as it came, unless it was labelled JSON and answers
 * requests (then it is an upstream fault: 502). Returns the outcome for the log phase.
 */
export async function respondJson(c: RespondContext, up: UpstreamResponse): Promise<JsonOutcome> {
  const headers = clientResponseHeaders(up.headers, true);
  const labelledJson = isJson(up.headers['content-type'] as string | undefined);
  // Only an answer to requests must be JSON-RPC (a 200 to notifications alone may be empty, as 202 would be).
  const mustBeJson = labelledJson && c.forwarded.some((r) => r.id !== undefined);
  const raw = labelledJson ? sendJson : sendBody;
  const declared = Number(up.headers['content-length']);
  let read: BodyRead = 'too_large';
  if (!(declared > c.capBytes)) read = await readAnswer(up, c.capBytes, c.x.s.config.mcpUpstreamTimeoutMs);
  else up.destroy();
  const body = bodyOrOutcome(c, read, headers, declared);
  if (typeof body === 'string') return body;

  if (!c.shaper.active && !c.local.length) {
    // Not parsed on this path (no rule needs it): a cheap look at its ends catches a truncated or non-JSON body.
    if (mustBeJson && !looksLikeJson(body)) return upstreamFailed(c, 'invalid');
    raw(c.res, up.statusCode, body.toString('utf8'), headers);
    return 'ok';
  }
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (mustBeJson) return upstreamFailed(c, 'invalid');
    raw(c.res, up.statusCode, text, headers);
    return 'ok';
  }
  return shapeAndSend(c, up.statusCode, { parsed, text }, headers);
}

/** The body read, or the outcome once the client has been answered (or has gone). */
function bodyOrOutcome(c: RespondContext, read: BodyRead, headers: Record<string, string | string[]>, declared: number): Buffer | JsonOutcome {
  if (c.res.destroyed) return 'client_gone';
  if (read === 'too_large') return tooLarge(c, headers, Number.isFinite(declared) ? declared : undefined);
  if (read === 'broken' || read === 'timeout') return upstreamFailed(c, read);
  return read;
}

/**
 * Shapes every message of a parsed answer (after the gateway's own answers) and writes the result. When nothing was
 * replaced and the gateway added no answers of its own, the upstream's text is written as it came (it is the same
 * document; serialising it again would only cost time).
 */
async function shapeAndSend(c: RespondContext, status: number, answer: { parsed: unknown; text: string }, headers: Record<string, string | string[]>): Promise<JsonOutcome> {
  const { parsed } = answer;
  const shaped = await shapeAll(c, Array.isArray(parsed) ? parsed as JsonRpcMessage[] : [parsed as JsonRpcMessage]);
  if (shaped === 'exit') return 'exit';
  if (!shaped.replaced && !c.local.length && (Array.isArray(parsed) || !c.batch)) {
    sendJson(c.res, status, answer.text, headers);
    return 'ok';
  }
  const payload = JSON.stringify(Array.isArray(parsed) || c.batch ? shaped.out : shaped.out[0]);
  if (Buffer.byteLength(payload) > c.capBytes) return tooLarge(c, headers, Buffer.byteLength(payload));
  sendJson(c.res, status, payload, headers);
  return 'ok';
}

/** The messages to write, the gateway's own first; 'exit' once a rule has answered the client itself. */
async function shapeAll(c: RespondContext, list: JsonRpcMessage[]): Promise<{ out: JsonRpcMessage[]; replaced: boolean } | 'exit'> {
  const out: JsonRpcMessage[] = [...c.local];
  let replaced = false;
  for (const m of list) {
    const s = c.shaper.active ? await c.shaper.shape(m) : { kind: 'keep' } as Shaped;
    if (s.kind === 'exit') {
      sendBody(c.res, s.status, s.body, { 'content-type': contentTypeOf(s.body), ...s.headers });
      return 'exit';
    }
    if (s.kind === 'replace') replaced = true;
    out.push(s.kind === 'replace' ? s.msg : m);
  }
  return { out, replaced };
}

type BodyRead = Buffer | 'too_large' | 'broken' | 'timeout';

/**
 * The whole JSON answer under the cap. Its headers came within the upstream timeout; the body must follow within
 * the same time again (an SSE stream has no such limit, a JSON body has no reason to pause).
 */
async function readAnswer(up: UpstreamResponse, cap: number, timeoutMs: number): Promise<BodyRead> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    up.destroy();
  }, timeoutMs);
  try {
    const body = await up.readAll(cap);
    if (timedOut) return 'timeout';
    return body ?? 'too_large';
  } catch {
    return timedOut ? 'timeout' : 'broken';
  } finally {
    clearTimeout(timer);
  }
}

/** First and last non-blank bytes of a JSON-RPC body: `{` or `[`, and `}` or `]`. */
function looksLikeJson(b: Buffer): boolean {
  let i = 0;
  let j = b.length - 1;
  while (i <= j && isBlankByte(b[i])) i++;
  while (j >= i && isBlankByte(b[j])) j--;
  return i < j && (b[i] === 0x7b || b[i] === 0x5b) && (b[j] === 0x7d || b[j] === 0x5d);
}

function isBlankByte(c: number | undefined): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The upstream's answer failed after its headers: the client gets the gateway's error, the request one error event. */
function upstreamFailed(c: RespondContext, why: 'broken' | 'timeout' | 'invalid'): 'failed' {
  const reason = why === 'timeout' ? 'upstream_timeout' : why === 'broken' ? 'upstream_broken' : 'upstream_invalid_response';
  emitFor(c.x, { type: 'error', details: { reason, status: why === 'timeout' ? 504 : 502 } });
  sendError(c.res, why === 'timeout' ? 504 : 502, why === 'timeout' ? McpMsg.timeout : why === 'broken' ? McpMsg.broken : McpMsg.invalidJson);
  return 'failed';
}

function tooLarge(c: RespondContext, headers: Record<string, string | string[]>, bytes: number | undefined): 'too_large' {
  const errs = c.forwarded.filter((r) => r.id !== undefined).map((r) => rpcError(r.id, RpcCode.responseTooLarge, RpcMsg.responseTooLarge));
  const all = [...c.local, ...errs];
  emitFor(c.x, { type: 'error', details: { reason: 'response_too_large', cap_kb: c.capBytes / 1024, bytes: bytes || undefined } });
  if (!all.length) all.push(rpcError(null, RpcCode.responseTooLarge, RpcMsg.responseTooLarge));
  sendJson(c.res, 200, c.batch ? all : all[0], headers);
  return 'too_large';
}

function contentTypeOf(body: string): string {
  const t = body.trimStart();
  return t.startsWith('{') || t.startsWith('[') ? 'application/json' : 'text/plain; charset=utf-8';
}

/**
 * Upstream answered with an event stream (POST or GET): pass it on event by event. The outcome event was recorded
 * when the stream started; what fails inside it is a `stream_error` detail, so the request keeps one outcome.
 */
export async function respondStream(c: RespondContext, up: UpstreamResponse): Promise<void> {
  const headers = clientResponseHeaders(up.headers, true);
  c.res.writeHead(up.statusCode, headers);
  for (const m of c.local) await write(c.res, `event: message\ndata: ${JSON.stringify(m)}\n\n`);
  // The headers go out with the first event when it came with the upstream's headers (one socket write instead of
  // two; the MCP SDK's server sends its headers alone, before it runs the tool); alone as soon as nothing more is
  // waiting, so that a client sees the stream open before a slow first event (a GET stream may have none for minutes).
  let sent = c.local.length > 0;
  const flushIfIdle = () => {
    if (sent || up.buffered) return;
    c.res.flushHeaders();
    sent = true;
  };
  flushIfIdle();
  // A character can take up to 3 bytes; the exact byte check happens per event below.
  const splitter = new SseSplitter(c.capBytes);
  const pending = new Set(c.forwarded.filter((r) => r.id !== undefined).map((r) => r.id!));
  try {
    for await (const chunk of up.chunks()) {
      const events = splitter.push(chunk);
      if (events.length) sent = true;
      for (const ev of events) await writeEvent(c, ev, pending);
      if (c.res.destroyed) break;
      flushIfIdle();
    }
    for (const ev of splitter.end()) await writeEvent(c, ev, pending);
  } catch (err) {
    // The upstream broke off (or a stopping gateway cut it): the requests still waiting get an error, not silence.
    const stopping = err instanceof GatewayStopping;
    emitFor(c.x, { type: 'stream_error', details: { reason: stopping ? 'gateway_stopping' : 'upstream_broken', unanswered: pending.size } });
    const message = stopping ? RpcMsg.gatewayStopping : RpcMsg.upstreamBroken;
    for (const id of pending) await write(c.res, `event: message\ndata: ${JSON.stringify(rpcError(id, RpcCode.noAnswer, message))}\n\n`);
  } finally {
    if (!c.res.destroyed) c.res.end();
    up.destroy();
  }
}

async function writeEvent(c: RespondContext, ev: SseEvent, pending: Set<JsonRpcId>): Promise<void> {
  if (ev.oversized) return writeOversized(c, ev, ev.oversized, pending);
  const data = ev.data;
  if (passesUnparsed(c, data)) {
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
  const response = msg.method === undefined;
  if (msg.id !== undefined && msg.id !== null && response) pending.delete(msg.id);
  const s = c.shaper.active ? await c.shaper.shape(msg) : { kind: 'keep' } as Shaped;
  let out = shapedData(msg, s);
  const size = out !== undefined ? out : data;
  if (overCap(size, c.capBytes)) out = overCapData(c, msg, response);
  await write(c.res, out === undefined ? ev.raw! : withData(ev, out));
}

/** An event without data, or one no rule may change and under the cap, is written as it came. */
function passesUnparsed(c: RespondContext, data: string | undefined): data is '' | undefined {
  return data === undefined || data === '' || (!c.shaper.active && !overCap(data, c.capBytes));
}

/** The new data of a shaped message; undefined when it is kept as it came. */
function shapedData(msg: JsonRpcMessage, s: Shaped): string | undefined {
  if (s.kind === 'replace') return JSON.stringify(s.msg);
  if (s.kind === 'exit') return JSON.stringify(rpcError(msg.id, RpcCode.blockedByRule, s.body));
  return undefined;
}

/** What replaces a message over the cap: an error for a response with an id, else a notice. */
function overCapData(c: RespondContext, msg: JsonRpcMessage, response: boolean): string {
  emitFor(c.x, { type: 'stream_error', details: { reason: 'response_too_large', cap_kb: c.capBytes / 1024 } });
  return JSON.stringify(!response || msg.id === undefined || msg.id === null ? withheldNotice(c, msg.method) : rpcError(msg.id, RpcCode.responseTooLarge, RpcMsg.responseTooLarge));
}

/**
 * An event over the cap, of which only the first and last few KB were kept. A response (its first member `result`
 * or `error`, or an id at its end) becomes `Response too large` for its id; a notification or a server request
 * (first member `method`) is withheld with a notice: answering it with an error for the client's own pending request
 * would end that request with the wrong answer.
 */
async function writeOversized(c: RespondContext, ev: SseEvent, o: { head: string; tail: string }, pending: Set<JsonRpcId>): Promise<void> {
  emitFor(c.x, { type: 'stream_error', details: { reason: 'response_too_large', cap_kb: c.capBytes / 1024 } });
  const start = messageStart(o.head);
  const id = start?.method === undefined ? sniffId(o.head, o.tail) ?? (start?.response && pending.size === 1 ? [...pending][0] : undefined) : undefined;
  if (id === undefined) return write(c.res, withData(ev, JSON.stringify(withheldNotice(c, start?.method))));
  pending.delete(id);
  await write(c.res, withData(ev, JSON.stringify(rpcError(id, RpcCode.responseTooLarge, RpcMsg.responseTooLarge))));
}

/** Stands in for a notification (or server request) over the cap, so the client learns that something was withheld. */
function withheldNotice(c: RespondContext, method: string | undefined): JsonRpcMessage {
  const what = method ? `a ${method} message` : 'a message';
  return {
    jsonrpc: '2.0', method: 'notifications/message',
    params: { level: 'error', logger: 'tollgate', data: `${RpcMsg.responseTooLarge}: ${what} from the upstream was over the ${c.capBytes / 1024} KB response cap and was withheld` },
  };
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

/**
 * What the first members of an event's JSON-RPC message say, from its first few KB: `method` (a notification or a
 * server request: its name), or `result`/`error` (a response). Undefined when the head does not tell.
 */
export function messageStart(head: string): { method?: string; response?: true } | undefined {
  const d = head.indexOf('data:');
  if (d < 0) return undefined;
  let i = skipBlank(head, d + 5);
  if (head[i] !== '{') return undefined;
  i++;
  for (;;) {
    i = skipBlank(head, i);
    const keyEnd = stringEnd(head, i);
    if (keyEnd < 0) return undefined;
    const key = head.slice(i + 1, keyEnd);
    i = skipBlank(head, keyEnd + 1);
    if (head[i] !== ':') return undefined;
    i = skipBlank(head, i + 1);
    if (key === 'method') {
      const end = stringEnd(head, i);
      return end < 0 ? { method: '' } : { method: safeParse(head.slice(i, end + 1)) };
    }
    if (key === 'result' || key === 'error') return { response: true };
    i = skipBlank(head, valueEnd(head, i));
    if (head[i] !== ',') return undefined;
    i++;
  }
}

function safeParse(s: string): string {
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === 'string' ? v.slice(0, 100) : '';
  } catch {
    return '';
  }
}

/** Index past blanks (not past a line break: the data of a multi-line event continues on another field line). */
function skipBlank(s: string, i: number): number {
  while (s[i] === ' ' || s[i] === '\t') i++;
  return i;
}

/** Index of the closing quote of the string starting at i, or -1. */
function stringEnd(s: string, i: number): number {
  if (s[i] !== '"') return -1;
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j;
  }
  return -1;
}

/** Index just past the JSON value starting at i (string, object, array, number or literal); s.length if it runs out. */
function valueEnd(s: string, i: number): number {
  if (s[i] === '"') {
    const e = stringEnd(s, i);
    return e < 0 ? s.length : e + 1;
  }
  if (s[i] === '{' || s[i] === '[') return containerEnd(s, i);
  let j = i;
  while (j < s.length && !',}]\n'.includes(s[j]!)) j++;
  return j;
}

/** Index just past the object or array starting at i; s.length if it runs out. */
function containerEnd(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const ch = s[j];
    if (ch === '"') {
      const e = stringEnd(s, j);
      if (e < 0) return s.length;
      j = e;
    } else if (ch === '{' || ch === '[') depth++;
    else if ((ch === '}' || ch === ']') && --depth === 0) return j + 1;
  }
  return s.length;
}

async function write(res: ServerResponse, s: string): Promise<void> {
  if (res.destroyed) return;
  if (!res.write(s)) await drained(res);
}
