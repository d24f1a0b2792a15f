// Embedded PostgreSQL (PGlite) on a thread of its own (pglite-worker.ts): a statement never runs on the event loop that
// serves the gateway and the API (docs/performance.md, "The tail"). This side keeps PGlite's order: one statement at
// a time, and a transaction holds the database until it ends, as PGlite's own transaction() does.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DatastoreUnavailable, type Db, type Queryable, type Row } from './db.ts';
import { errorFrom, type PgliteReply, type PgliteRequest } from './pglite-protocol.ts';

type Pending = { resolve: (r: PgliteReply) => void; reject: (err: Error) => void };
type Send = (req: DistributiveOmit<PgliteRequest, 'id'>) => Promise<PgliteReply>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * The worker beside this module: the compiled .js in the build. When the sources run (tests, a development checkout
 * through tsx), a thread does not inherit tsx's loader, so it registers tsx before it imports the .ts worker.
 */
function newWorker(dataDir: string | undefined, nice: number): Worker {
  const options = { workerData: { dataDir, nice } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(sibling('pglite-worker'), options);
  const source = sibling('pglite-worker').href;
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`, { ...options, eval: true });
}

/** A module beside this one: the .ts source when the sources run (tests, tsx), the compiled .js in the build. */
function sibling(name: string): URL {
  return new URL(`./${name}.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
}

/**
 * Creates the database in `dataDir` in a short-lived process of its own, like PostgreSQL's initdb. Creating a cluster
 * makes PGlite's WASM memory grow to several hundred megabytes, and WASM memory never shrinks: done in the serving
 * process, that peak would stay with `tollgate serve` for its whole life (docs/performance.md, "Memory").
 */
function initDataDir(dataDir: string): Promise<void> {
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)}); const pg = new PGlite(process.argv[1]); await pg.waitReady; await pg.close();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000); });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`creating the embedded database in ${dataDir} failed (${signal ?? `exit code ${code}`}): ${stderr.trim()}`))));
  });
}

/** Starts the thread; resolves once PGlite is ready, with the function that sends it one request (exported for its test). */
export async function startWorker(dataDir: string | undefined, nice: number): Promise<{ send: Send; worker: Worker }> {
  const worker = newWorker(dataDir, nice);
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let gone: Error | undefined;
  const ready = new Promise<void>((resolve, reject) => pending.set(0, {
    resolve: (r) => (r.error ? reject(errorFrom(r.error)) : resolve()),
    reject,
  }));
  worker.on('message', (r: PgliteReply) => {
    const p = pending.get(r.id);
    pending.delete(r.id);
    // An idle database does not keep the process alive (neither did PGlite on the main thread); a statement does.
    if (!pending.size) worker.unref();
    p?.resolve(r);
  });
  const fail = (err: Error) => {
    gone = new DatastoreUnavailable('database', err);
    for (const p of pending.values()) p.reject(gone);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`PGlite is closed (its thread exited with code ${code})`)));
  await ready;
  const send: Send = (req) => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...req, id });
    });
  };
  return { send, worker };
}

/**
 * Embedded PostgreSQL: persisted in dataDir, or in memory when dataDir is undefined (tests). `nice`: the database
 * thread's nice value on Linux (0: the process's own priority).
 */
export async function openPglite(dataDir: string | undefined, { nice = 0 }: { nice?: number } = {}): Promise<Db> {
  if (dataDir && !existsSync(join(dataDir, 'PG_VERSION'))) await initDataDir(dataDir);
  const { send, worker } = await startWorker(dataDir, nice);
  let closed = false;
  // Every statement outside a transaction, and every whole transaction, waits for the one before it.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <R>(fn: () => Promise<R>): Promise<R> => {
    if (closed) return Promise.reject(new DatastoreUnavailable('database'));
    const run = turn.then(fn, fn);
    turn = run.catch(() => undefined);
    return run;
  };
  const direct: Queryable = {
    async query<T extends Row>(sql: string, params?: readonly unknown[]) {
      let r = await send({ op: 'query', sql, params: params as unknown[] | undefined });
      if (r.error) throw errorFrom(r.error);
      const rows = (r.rows ?? []) as T[];
      // Each part of a large result arrives in a turn of its own (PgliteReply.more).
      const of = r.id;
      while (r.more) {
        r = await send({ op: 'more', of });
        if (r.error) throw errorFrom(r.error);
        for (const row of r.rows ?? []) rows.push(row as T);
      }
      return rows;
    },
    async exec(sql: string) {
      const r = await send({ op: 'exec', sql });
      if (r.error) throw errorFrom(r.error);
    },
  };
  const q: Queryable = {
    query: (sql, params) => inTurn(() => direct.query(sql, params)),
    exec: (sql) => inTurn(() => direct.exec(sql)),
  };
  const tx = <R>(fn: (q: Queryable) => Promise<R>) => inTurn(async () => {
    await direct.exec('BEGIN');
    try {
      const r = await fn(direct);
      await direct.exec('COMMIT');
      return r;
    } catch (err) {
      await direct.exec('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
  return {
    kind: 'pglite',
    query: q.query,
    exec: q.exec,
    tx,
    withLock: (_id, fn) => fn(q),
    ping: async () => { await q.query('SELECT 1'); },
    close: async () => {
      if (closed) return;
      // Statements already queued finish first; PGlite then flushes its files before the thread ends.
      await inTurn(() => send({ op: 'close' })).catch(() => undefined);
      closed = true;
      await worker.terminate();
    },
  };
}
