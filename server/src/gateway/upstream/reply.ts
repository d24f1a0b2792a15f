// The answers the gateway writes itself, for both proxy kinds and the listener around them: a whole body with its
// length, a JSON document, and the `{"error": message}` every refusal and upstream failure carries. A reply that
// comes after the response has started (an upstream stream broke off) cannot be written any more: the client's
// connection is cut instead, so it cannot take a truncated answer for a whole one.
import type { ServerResponse } from 'node:http';
import { COOKIE_SETTING_HEADERS } from './headers.ts';

/**
 * Writes a whole body with the given headers (their content type kept) and its length. Every answer the gateway
 * writes itself passes here, a rule's (a lambda's exit, a cache hit) too, so no cookie is set here whatever the
 * headers came from (headers.ts COOKIE_SETTING_HEADERS says why).
 */
export const sendBody: Writer = wholeBodyWriter(undefined);

const writeJson = wholeBodyWriter({ value: 'application/json', wins: true });

/** A JSON answer; a string body is taken as JSON text already serialised. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string | string[]>): void {
  writeJson(res, status, typeof body === 'string' ? body : JSON.stringify(body), headers);
}

/** `{"error": message}` with the given status (and headers such as Retry-After or WWW-Authenticate). */
export function sendError(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { error: message }, headers);
}

/** A body a rule produced (a lambda's exit, a cache hit): JSON unless the rule's own headers say otherwise. */
export const sendRuleBody: Writer = wholeBodyWriter({ value: 'application/json', wins: false });

/** A content type for an answer: set over the headers' own (`wins`) or only where they name none. */
interface ContentType { value: string; wins: boolean }

type Writer = (res: ServerResponse, status: number, body: string, headers: Record<string, string | string[]> | undefined) => void;

/**
 * The one header copy of every answer the gateway writes (callers used to spread their headers into a new object
 * first, a second copy per answer), for one content type policy.
 */
function wholeBodyWriter(type: ContentType | undefined): Writer {
  return (res, status, body, headers) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const out: Record<string, string | string[] | number> = {};
    if (type && !type.wins) out['content-type'] = type.value;
    for (const k in headers) if (!COOKIE_SETTING_HEADERS.has(k.toLowerCase())) out[k] = headers[k]!;
    if (type?.wins) out['content-type'] = type.value;
    out['content-length'] = Buffer.byteLength(body);
    res.writeHead(status, out);
    res.end(body);
  };
}
