// The messages between the main thread and the embedded database's thread (pglite.ts, pglite-worker.ts).
import type { Row } from './db.ts';

export type PgliteRequest =
  | { id: number; op: 'query'; sql: string; params?: unknown[] }
  /** The next part of the rows of query `of`, after a reply with `more`. */
  | { id: number; op: 'more'; of: number }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'close' };

/** id 0 answers the start: PGlite ready, or why it could not open. */
export interface PgliteReply {
  id: number;
  rows?: Row[];
  /**
   * A large result comes in parts of about ROWS_PART_BYTES, each asked for with `more`: copying rows between threads
   * costs the receiving event loop about 1 ms per 100 KB, so a result of 10 MB (a snapshot's MCP catalogs) in one
   * message held it for 75–110 ms (docs/performance.md, "A snapshot of many tenants").
   */
  more?: true;
  error?: ErrorFields;
}

/** The size of a part of a large result, counted as its rows' JSON. */
export const ROWS_PART_BYTES = 64 * 1024;
/** Results of at most this many rows go whole, unmeasured (nearly every statement's). */
export const ROWS_WHOLE = 64;

/** What callers read of a database error (the SQLSTATE in `code` decides isDataError and friends). */
export interface ErrorFields {
  message: string;
  name?: string;
  code?: string;
  detail?: string;
  hint?: string;
  severity?: string;
  constraint?: string;
  table?: string;
  column?: string;
}

const KEPT = ['name', 'code', 'detail', 'hint', 'severity', 'constraint', 'table', 'column'] as const;

export function errorFields(err: unknown): ErrorFields {
  const e = (err && typeof err === 'object' ? err : {}) as Record<string, unknown>;
  const out: ErrorFields = { message: typeof e.message === 'string' ? e.message : String(err) };
  for (const k of KEPT) if (typeof e[k] === 'string') out[k] = e[k];
  return out;
}

/** The error again on this side of the thread boundary, with the same fields. */
export function errorFrom(fields: ErrorFields): Error {
  const err = new Error(fields.message);
  Object.assign(err, fields);
  return err;
}
