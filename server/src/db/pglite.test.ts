// The embedded database's thread (pglite.ts, pglite-worker.ts): a large result reaches the event loop in parts, each
// asked for in a message of its own (so each arrives in a turn of its own), whole and in order, also when two large
// queries of one transaction run at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROWS_PART_BYTES } from './pglite-protocol.ts';
import { openPglite, startWorker } from './pglite.ts';

const LARGE = 'SELECT i, repeat(md5(i::text), 32) AS filler, ARRAY[i, i + 1] AS pair, jsonb_build_object(\'n\', i) AS doc FROM generate_series(1, $1::int) i ORDER BY i';

function expectRows(rows: Array<Record<string, unknown>>, n: number, what: string): void {
  assert.equal(rows.length, n, what);
  rows.forEach((r, k) => {
    const i = k + 1;
    if (r.i !== i || (r.filler as string).length !== 1024 || (r.pair as number[])[1] !== i + 1 || (r.doc as { n: number }).n !== i) {
      assert.fail(`${what}: row ${k} is ${JSON.stringify(r).slice(0, 120)}`);
    }
  });
}

test('the thread sends a large result in parts of about 64 KB, each asked for; a small one whole', async () => {
  const { send, worker } = await startWorker(undefined, 0);
  try {
    let r = await send({ op: 'query', sql: LARGE, params: [3000] });
    const rows = [...r.rows!];
    const of = r.id;
    let parts = 1;
    while (r.more) {
      const bytes = JSON.stringify(r.rows).length;
      assert.ok(bytes >= ROWS_PART_BYTES && bytes < ROWS_PART_BYTES + 2000, `a part of ${bytes} bytes`);
      r = await send({ op: 'more', of });
      rows.push(...r.rows!);
      parts++;
    }
    expectRows(rows, 3000, 'the parts together');
    assert.ok(parts >= 40, `${parts} parts`);
    const small = await send({ op: 'query', sql: LARGE, params: [64] });
    assert.equal(small.more, undefined);
    expectRows(small.rows!, 64, 'a result small enough to come whole');
  } finally {
    await worker.terminate();
  }
});

test('through the Db interface a large result arrives whole and in order', async () => {
  const db = await openPglite(undefined);
  try {
    expectRows(await db.query(LARGE, [3000]), 3000, 'one query');
  } finally {
    await db.close();
  }
});

test('two large queries running at once in one transaction each get their own rows', async () => {
  const db = await openPglite(undefined);
  try {
    const [a, b] = await db.tx((q) => Promise.all([q.query(LARGE, [1500]), q.query(LARGE, [700])]));
    expectRows(a, 1500, 'first query');
    expectRows(b, 700, 'second query');
  } finally {
    await db.close();
  }
});
