// The upstream call of both proxy kinds, through undici's dispatch API (../../net/upstream-response.ts): the request
// goes out on the proxy's pinned agent with the kind's timeouts, the time to the upstream's response headers goes to
// the kind's histogram, and the upstream exchange is tied to the client's connection: a client that leaves ends it
// (an open SSE stream above all). Tying it only once the answer has started is cheaper than an AbortController per
// request; a client gone before that only costs the upstream its reply. What a failure means to the client (status,
// message, event) is the proxy kind's to say: timeoutOf() tells the timeouts apart.
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { sendUpstream, type UpstreamRequest, type UpstreamResponse } from '../../net/upstream-response.ts';
import type { Exchange } from '../pipeline/types.ts';

/**
 * Sends the request and resolves once the upstream's status and headers arrived (rejects with undici's error
 * otherwise). If the client has already left by then the response is destroyed at once: check `res.destroyed`.
 */
export async function callUpstream(x: Exchange, dispatcher: Dispatcher, request: UpstreamRequest, res: ServerResponse): Promise<UpstreamResponse> {
  const sentAt = performance.now();
  const up = await sendUpstream(dispatcher, request);
  x.s.metrics?.upstreamSeconds(x.proxy.kind, (performance.now() - sentAt) / 1000);
  if (res.destroyed) up.destroy();
  else res.once('close', () => up.destroy());
  return up;
}

/** Which timeout ended a failed call, if one did: no response headers in time, or no connection in time. */
export function timeoutOf(err: unknown): 'headers' | 'connect' | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return 'headers';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect';
  return undefined;
}

/**
 * Copies the upstream body to the client chunk by chunk as it arrives, never held whole (SSE passes through as it
 * comes); client backpressure pauses the upstream read. `tap` sees each chunk once the client's response took it.
 * Resolves with 'client_gone' when the client left first, false when the body ended; rejects with the upstream's
 * error when the exchange broke off. Ending the client's response is the caller's.
 */
export async function pipeBody(up: UpstreamResponse, res: ServerResponse, tap?: { push(chunk: Buffer): void }): Promise<'client_gone' | false> {
  let waiting = false;
  const resume = () => {
    waiting = false;
    up.resume();
  };
  // In undici's turn, as the bare proxy's 'data' handler does (a client that left destroys `up`: callUpstream).
  await up.writeTo((chunk) => {
    if (res.destroyed) return true;
    const more = res.write(chunk);
    tap?.push(chunk);
    if (!more && !waiting) {
      waiting = true;
      res.once('drain', resume);
    }
    return more;
  });
  return res.destroyed ? 'client_gone' : false;
}

/** Resolves when the client's response can take more (or the client has gone). */
export function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
