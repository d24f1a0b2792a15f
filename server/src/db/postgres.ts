import pg from 'pg';
import { DatastoreUnavailable, isConnectionError, type Db, type Queryable, type Row } from './db.ts';
import { bufferOf, TextBytes } from './text.ts';

// int8 (bigint, count(*)) as JS numbers: our values (Unix seconds, cents, tokens) stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * A TextBytes parameter of its own goes as its bytes: node-postgres sends a Buffer in binary format, which for text
 * is the UTF-8 bytes themselves, so a text of tens of MB is copied once instead of decoded into a string and encoded
 * again on the event loop. In an array it is decoded by its `toPostgres` (an array parameter is sent as text).
 */
function wireParams(params: readonly unknown[] | undefined): unknown[] | undefined {
  return params?.map((p) => (p instanceof TextBytes ? bufferOf(p.bytes) : p));
}

function wrap<T>(p: Promise<T>): Promise<T> {
  return p.catch((err: unknown) => {
    throw isConnectionError(err) ? new DatastoreUnavailable('database', err) : err;
  });
}

export async function openPostgres(url: string, schema?: string): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 3000,
    options: schema ? `-c search_path=${schema}` : undefined,
  });
  pool.on('error', () => { /* idle client errors surface on the next query */ });
  if (schema) await wrap(pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`));
  const q: Queryable = {
    async query<T extends Row>(sql: string, params?: readonly unknown[]) {
      const r = await wrap(pool.query(sql, wireParams(params)));
      return r.rows as T[];
    },
    async exec(sql: string) {
      await wrap(pool.query(sql));
    },
  };
  async function onClient<R>(fn: (c: pg.PoolClient) => Promise<R>): Promise<R> {
    const client = await wrap(pool.connect());
    try {
      return await fn(client);
    } finally {
      client.release();
    }
  }
  const clientQ = (c: pg.PoolClient): Queryable => ({
    async query<T extends Row>(sql: string, params?: readonly unknown[]) {
      return (await wrap(c.query(sql, wireParams(params)))).rows as T[];
    },
    async exec(sql: string) {
      await wrap(c.query(sql));
    },
  });
  return {
    kind: 'postgres',
    query: q.query,
    exec: q.exec,
    tx: (fn) => onClient(async (c) => {
      await c.query('BEGIN');
      try {
        const r = await fn(clientQ(c));
        await c.query('COMMIT');
        return r;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }),
    withLock: (lockId, fn) => onClient(async (c) => {
      await c.query('SELECT pg_advisory_lock($1)', [lockId]);
      try {
        return await fn(clientQ(c));
      } finally {
        await c.query('SELECT pg_advisory_unlock($1)', [lockId]).catch(() => undefined);
      }
    }),
    ping: async () => { await q.query('SELECT 1'); },
    close: () => pool.end(),
  };
}
