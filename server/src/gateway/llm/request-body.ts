// Reads an LLM request body whole (the model, the prompt and the rules need it before anything is forwarded),
// bounded so a client cannot make the gateway buffer without limit.
import type { IncomingMessage } from 'node:http';

/** Large enough for prompts with inline images or documents. */
export const MAX_LLM_REQUEST_BYTES = 32 * 1024 * 1024;

export class BodyTooLarge extends Error {}

export function readRequestBody(req: IncomingMessage, max = MAX_LLM_REQUEST_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    req.resume();
    return Promise.reject(new BodyTooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(b);
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}
