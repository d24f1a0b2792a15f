// Small HTTP helpers of the MCP handler: bounded body reading, JSON answers, the DNS-rebinding Origin check.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonRpcMessage } from './jsonrpc.ts';

/** Largest client request body the gateway reads (a JSON-RPC request with its arguments). */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage, max = MAX_REQUEST_BYTES): Promise<Buffer> {
  // Plain events rather than an async iterator: this runs on every POST and the iterator machinery costs more than
  // the read itself.
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > max) {
      req.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        chunks.length = 0;
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  sendBody(res, status, typeof body === 'string' ? body : JSON.stringify(body), { ...headers, 'content-type': 'application/json' });
}

/** Writes a whole body with the given headers (their content type kept) and its length. */
export function sendBody(res: ServerResponse, status: number, body: string, headers: Record<string, string | string[]>): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: message }, headers);
}

/** JSON-RPC answers to a POST: one object for a single message, an array for a batch. */
export function sendRpc(res: ServerResponse, batch: boolean, msgs: JsonRpcMessage[], headers: Record<string, string | string[]> = {}): void {
  sendJson(res, 200, batch ? msgs : msgs[0], headers);
}

/**
 * DNS-rebinding protection (MCP transport security): a browser page on a foreign site must not drive the proxy.
 * A request carrying an Origin whose host differs from the Host it was sent to is refused; requests without Origin
 * (non-browser clients such as the SDK) pass. The Origin header is not forwarded upstream.
 */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  return host !== '' && host.toLowerCase() === (req.headers.host ?? '').toLowerCase();
}
