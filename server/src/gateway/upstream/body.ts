// A client's request body, read whole and bounded, for both proxy kinds: the gateway needs it before anything is
// forwarded (MCP: the JSON-RPC messages; LLM: the model, the prompt and the rules), and a client must not make it
// buffer without limit. Over the limit the client gets 413 and the rest of its body is drained, not read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './reply.ts';

/** Largest MCP request body (a JSON-RPC request with its arguments). */
export const MAX_MCP_REQUEST_BYTES = 4 * 1024 * 1024;
/** Largest LLM request body: large enough for prompts with inline images or documents. */
export const MAX_LLM_REQUEST_BYTES = 32 * 1024 * 1024;

export const BODY_TOO_LARGE = 'Request body too large';

export class BodyTooLarge extends Error {}

/** The whole body, or a BodyTooLarge rejection once it (or its declared length) passes `max` bytes. */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  // Plain events rather than an async iterator: this runs on every request with a body and the iterator machinery
  // costs more than the read itself.
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
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

/** The body, or undefined once the client has been answered 413 for a body over `max` bytes. */
export async function readBodyOr413(req: IncomingMessage, res: ServerResponse, max: number): Promise<Buffer | undefined> {
  try {
    return await readBody(req, max);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    sendError(res, 413, BODY_TOO_LARGE);
    return undefined;
  }
}
