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
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, Msg.invalidJson);
  }
  // PostgreSQL cannot store U+0000: refuse it here with the field's path instead of a 500 from the database.
  if (text.includes('\\u0000')) {
    const at = nulPath(body, '');
    if (at !== undefined) throw new HttpError(400, `${at || 'body'}: must not contain NUL characters`);
  }
  return body;
}

/** The path (`a.b[2]`) of the first key or string value holding a NUL, if any. */
function nulPath(v: unknown, path: string): string | undefined {
  if (typeof v === 'string') return v.includes('\u0000') ? path : undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = nulPath(v[i], `${path}[${i}]`);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const here = path ? `${path}.${k}` : k;
      if (k.includes('\u0000')) return here;
      const p = nulPath(x, here);
      if (p !== undefined) return p;
    }
  }
  return undefined;
}
