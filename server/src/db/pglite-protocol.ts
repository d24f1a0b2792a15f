// The messages between the main thread and the embedded database's thread (pglite.ts, pglite-worker.ts).
import type { Row } from './db.ts';

export type PgliteRequest =
  | { id: number; op: 'query'; sql: string; params?: unknown[] }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'close' };

/** id 0 answers the start: PGlite ready, or why it could not open. */
export interface PgliteReply {
  id: number;
  rows?: Row[];
  error?: ErrorFields;
}

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
