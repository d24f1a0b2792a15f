// One SQL interface over real PostgreSQL (pg) and embedded PGlite: both speak PostgreSQL with $n parameters, so
// every query and migration runs unchanged on either.
export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction; rolls back if it throws. */
  tx<R>(fn: (q: Queryable) => Promise<R>): Promise<R>;
  /** Runs fn while holding a cluster-wide lock (one migrator at a time when replicas start together). */
  withLock<R>(lockId: number, fn: (q: Queryable) => Promise<R>): Promise<R>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown (and turned into 503) when the datastore cannot be reached. */
export class DatastoreUnavailable extends Error {
  constructor(readonly store: 'database' | 'redis', cause?: unknown) {
    super(`${store} unavailable`, { cause });
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P03', '08000', '08003', '08006']);

export function isConnectionError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  const msg = String((err as { message?: unknown }).message ?? '');
  return /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|PGlite is closed|Cannot use a pool after calling end/i.test(msg);
}
