import { PGlite, types } from '@electric-sql/pglite';
import { DatastoreUnavailable, type Db, type Queryable, type Row } from './db.ts';

/** Embedded PostgreSQL: persisted in dataDir, or in memory when dataDir is undefined (tests). */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  const pg = new PGlite(dataDir, {
    parsers: { [types.INT8]: (v: string) => Number(v), [types.NUMERIC]: (v: string) => Number(v) },
  });
  await pg.waitReady;
  let closed = false;
  const check = () => {
    if (closed) throw new DatastoreUnavailable('database');
  };
  const q: Queryable = {
    async query<T extends Row>(sql: string, params?: readonly unknown[]) {
      check();
      const r = await pg.query<T>(sql, params as unknown[] | undefined);
      return r.rows;
    },
    async exec(sql: string) {
      check();
      await pg.exec(sql);
    },
  };
  // PGlite runs one statement at a time; a transaction holds it exclusively, so no lock beyond it is needed.
  const tx = <R>(fn: (q: Queryable) => Promise<R>) => {
    check();
    return pg.transaction(async (t) => fn({
      async query<T extends Row>(sql: string, params?: readonly unknown[]) {
        return (await t.query<T>(sql, params as unknown[] | undefined)).rows;
      },
      async exec(sql: string) {
        await t.exec(sql);
      },
    }));
  };
  return {
    kind: 'pglite',
    query: q.query,
    exec: q.exec,
    tx,
    withLock: (_id, fn) => fn(q),
    ping: async () => { await q.query('SELECT 1'); },
    close: async () => {
      if (closed) return;
      closed = true;
      await pg.close();
    },
  };
}
