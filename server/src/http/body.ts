import type { IncomingMessage } from 'node:http';
import { HttpError, Msg } from './errors.ts';

export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Reads and parses a JSON body. Spec: a body that is not JSON, or a missing JSON Content-Type, is a 400. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const ct = (req.headers['content-type'] ?? '').toLowerCase();
  if (!/^application\/([a-z0-9.+-]+\+)?json\b/.test(ct)) {
    req.resume();
    throw new HttpError(400, Msg.invalidJson);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'Request body too large');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, Msg.invalidJson);
  }
}
