// The embedded database's thread (server/src/db/pglite.ts starts it). PGlite runs PostgreSQL compiled to WASM, and a
// statement runs synchronously from start to end: on the main thread, a batch of audit events or a snapshot load held
// the event loop, and every proxied request waiting behind it, for tens of milliseconds. Here it holds only this
// thread. Messages are handled one at a time, in order, as PGlite would run them.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';
import type { Row } from './db.ts';
import type { PgliteReply, PgliteRequest } from './pglite-protocol.ts';
import { errorFields, ROWS_PART_BYTES, ROWS_WHOLE } from './pglite-protocol.ts';
import { decodeTextParams } from './text.ts';

const port = parentPort!;
const { dataDir, nice } = workerData as { dataDir: string | undefined; nice: number };

/**
 * PostgreSQL's default of 128 MB of shared buffers is sized for a server; here the buffers live in the WASM memory of
 * the process that also serves traffic, and embedded mode's tables are small. 16 MB cut the resident size of an
 * opened database by about 120 MB (docs/performance.md, "Memory").
 */
const SHARED_BUFFERS = '16MB';

/**
 * Linux keeps a nice value per thread (TOLLGATE_PGLITE_NICE, off by default): with one, this thread yields the core to
 * the event loop of the requests it records when both want it. No proxied request waits for the gateway's batched
 * writes, but they must keep up: under a sustained overload of one core the audit backlog grows to its bound and
 * events are dropped, which is why it is not the default (docs/performance.md, "The tail").
 */
if (nice > 0 && process.platform === 'linux') {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch (err) {
    // Said on stderr rather than failing the start: the thread then runs at the process's priority, as by default.
    process.emitWarning(`TOLLGATE_PGLITE_NICE=${nice} was not applied to the embedded database's thread: ${String(err)}`);
  }
}

const pg = new PGlite(dataDir, {
  parsers: { [types.INT8]: (v: string) => Number(v), [types.NUMERIC]: (v: string) => Number(v) },
  startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
});

/** Each query's rows not sent yet (from `at` on), by query id, until the main thread has asked for all. */
const held = new Map<number, { rows: Row[]; at: number }>();

/** The next part of query `of`'s rows: rows up to about ROWS_PART_BYTES, at least one. */
function nextPart(id: number, of: number): PgliteReply {
  const h = held.get(of);
  if (!h) return { id, rows: [] };
  let end = h.at;
  for (let bytes = 0; end < h.rows.length && bytes < ROWS_PART_BYTES; end++) bytes += JSON.stringify(h.rows[end])?.length ?? 0;
  const rows = h.rows.slice(h.at, end);
  if (end === h.rows.length) {
    held.delete(of);
    return { id, rows };
  }
  h.at = end;
  return { id, rows, more: true };
}

function answer(id: number, rows: Row[]): PgliteReply {
  if (rows.length <= ROWS_WHOLE) return { id, rows };
  held.set(id, { rows, at: 0 });
  return nextPart(id, id);
}

async function run(msg: PgliteRequest): Promise<PgliteReply> {
  switch (msg.op) {
    case 'query': return answer(msg.id, (await pg.query<Row>(msg.sql, decodeTextParams(msg.params))).rows);
    case 'more': return nextPart(msg.id, msg.of);
    case 'exec': await pg.exec(msg.sql); return { id: msg.id };
    case 'close': await pg.close(); return { id: msg.id };
  }
}

let queue: Promise<unknown> = pg.waitReady.then(
  () => port.postMessage({ id: 0 } satisfies PgliteReply),
  (err: unknown) => port.postMessage({ id: 0, error: errorFields(err) } satisfies PgliteReply),
);

port.on('message', (msg: PgliteRequest) => {
  queue = queue.then(async () => {
    let reply: PgliteReply;
    try {
      reply = await run(msg);
    } catch (err) {
      reply = { id: msg.id, error: errorFields(err) };
    }
    port.postMessage(reply);
    if (msg.op === 'close') port.close();
  });
});
