// The JSON body of a management request, read through express's body parser when the handler asks for it.
//
// On demand, because the spec's order of failures depends on it: authentication and the handler's own checks come
// before a 400 for the body, and a handler that does not read the body never fails on it. The parser's outcome comes
// back as a value (the body, or the spec's HttpError), not through the error middleware.
//
// express.raw does the reading: the JSON content-type gate, the 8 MiB limit (413) and draining a refused body. The
// bytes are then parsed as UTF-8 JSON here, because express.json differs from the API's contract in ways clients
// would see: it reads an empty body as `{}`, answers 415 for a charset other than utf-*, decodes by the declared
// charset, and throws on a Content-Type with malformed parameters (a 500 here) where we answer or accept as before.
import express, { type Request, type Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { HttpError, Msg } from './errors.ts';

export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** `application/json` and any `application/...+json`, in any case (the content types the API has always accepted). */
const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\b/;

function isJsonRequest(req: IncomingMessage): boolean {
  return JSON_TYPE.test((req.headers['content-type'] ?? '').toLowerCase());
}

/** Maps a body-parser error to the spec's answer; anything else (an aborted request, a bug) stays as it is. */
function bodyError(err: unknown): unknown {
  const type: unknown = err instanceof Error && 'type' in err ? err.type : undefined;
  if (type === 'entity.too.large') return new HttpError(413, 'Request body too large');
  // inflate: false refuses a compressed body before reading it; it was never JSON to us either.
  if (type === 'encoding.unsupported') return new HttpError(400, Msg.invalidJson);
  return err;
}

/** Parses the bytes; refuses what is not JSON and a NUL anywhere in it (PostgreSQL cannot store U+0000). */
function parseJson(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, Msg.invalidJson);
  }
  // A NUL can only come from a `\u0000` escape, so only such a body is walked for the field's path.
  if (text.includes('\\u0000')) {
    const at = nulPath(body);
    if (at !== undefined) throw new HttpError(400, `${at || 'body'}: must not contain NUL characters`);
  }
  return body;
}

export type JsonBodyReader = (req: Request, res: Response) => Promise<unknown>;

/** Built once per app. */
export function jsonBodyReader(): JsonBodyReader {
  const read = express.raw({ type: isJsonRequest, inflate: false, limit: MAX_BODY_BYTES });
  return (req, res) => new Promise<unknown>((resolve, reject) => {
    read(req, res, (err?: unknown) => {
      if (err) return reject(bodyError(err));
      const raw: unknown = req.body;
      // Skipped by the parser (no JSON content type, or no body at all): not JSON. Drain what nobody will read.
      if (!Buffer.isBuffer(raw)) {
        req.resume();
        return reject(new HttpError(400, Msg.invalidJson));
      }
      try {
        resolve(parseJson(raw));
      } catch (e) {
        reject(e);
      }
    });
  });
}

const MAX_REPORTED_PATH = 200;

/**
 * The path (`a.b[2]`) of the first key or string value holding a NUL, if any. Iterative: JSON.parse accepts nesting
 * far deeper than the call stack (a hundred thousand `[`), so a recursive walk would overflow on such a body.
 */
function nulPath(root: unknown): string | undefined {
  const todo: NulWalkItem[] = [{ v: root, path: '' }];
  for (let item = todo.pop(); item; item = todo.pop()) {
    const { v, path, key } = item;
    if ((key !== undefined && key.includes('\u0000')) || (typeof v === 'string' && v.includes('\u0000'))) {
      return path.length > MAX_REPORTED_PATH ? `${path.slice(0, MAX_REPORTED_PATH)}…` : path;
    }
    pushChildren(todo, v, path);
  }
  return undefined;
}

interface NulWalkItem { v: unknown; path: string; key?: string }

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** The elements or members of v, last first, so that they are popped in document order. */
function pushChildren(todo: NulWalkItem[], v: unknown, path: string): void {
  if (Array.isArray(v)) {
    for (let i = v.length - 1; i >= 0; i--) todo.push({ v: v[i], path: `${path}[${i}]` });
  } else if (v && typeof v === 'object') {
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      // A key that is not a plain name is shown as a JSON string, so that a path never starts or ends with white space
      // or holds a control character that the message would carry raw.
      const segment = PLAIN_KEY.test(k) ? k : JSON.stringify(k);
      todo.push({ v: x, path: path ? `${path}.${segment}` : segment, key: k });
    }
  }
}
