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

/**
 * True for a PostgreSQL error about the data itself (SQLSTATE class 22, data exception, or 23, integrity
 * violation): retrying the same rows can never succeed, unlike a lost connection.
 */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/**
 * Writes items one at a time, after their batch was refused for its data: an item the database refuses (a data
 * error) is dropped alone; any other failure stops the walk. Returns how many were dropped, and the items not yet
 * written together with that failure, for the caller to retry.
 */
export async function writeOneByOne<T>(items: readonly T[], write: (item: T) => Promise<unknown>): Promise<{ dropped: number; rest: T[]; error?: unknown }> {
  let dropped = 0;
  for (let i = 0; i < items.length; i++) {
    try {
      await write(items[i]!);
    } catch (err) {
      if (!isDataError(err)) return { dropped, rest: items.slice(i), error: err };
      dropped++;
    }
  }
  return { dropped, rest: [] };
}
