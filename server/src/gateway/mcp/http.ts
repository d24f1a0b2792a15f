// Small HTTP helpers of the MCP handler: JSON-RPC answers and the DNS-rebinding Origin check (bounded body reading
// and the plain JSON and error answers are the gateway's, ../upstream/body.ts and ../upstream/reply.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonRpcMessage } from './jsonrpc.ts';
import { sendJson } from '../upstream/reply.ts';

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
