import { test } from 'node:test';
import assert from 'node:assert/strict';
import { turnCounter } from '@tollgate/testkit/turn-counter.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';
import { sharedTextBytes, storableJson, storableJsonInTurns, TextBytes } from './text.ts';

test('storableJson: NULs and lone surrogates become U+FFFD; pairs and other text stay', () => {
  const v = { a: 'x\u0000y', b: 'lone \ud800 high', c: 'lone \udc00 low', d: 'pair 😀', e: 5 };
  assert.deepEqual(JSON.parse(storableJson(v)), { a: 'x\uFFFDy', b: 'lone \uFFFD high', c: 'lone \uFFFD low', d: 'pair 😀', e: 5 });
  assert.equal(storableJson({ plain: 'text' }), '{"plain":"text"}');
});

test('storableJsonInTurns: a batch larger than a slice is what storableJson gives, with turns of the event loop between slices', async () => {
  const rows = Array.from({ length: 7 }, (_, i) => ({ i, note: i === 5 ? 'bad\u0000byte' : `row ${i}`, gone: undefined }));
  const turns = turnCounter();
  const before = turns.count;
  const json = await storableJsonInTurns(rows, 2);
  assert.equal(json, storableJson(rows));
  assert.ok(turns.count - before >= 3, `the loop ran ${turns.count - before} turns while 4 slices were serialised`);
  assert.equal(await storableJsonInTurns(rows.slice(0, 2), 2), storableJson(rows.slice(0, 2)), 'one slice: no turn needed');
  assert.equal(await storableJsonInTurns([], 2), '[]');
});

test('a TextBytes parameter is stored as its text, alone or in an array, on PGlite and (with DATABASE_URL) PostgreSQL', async () => {
  const text = `v1.${'ab-_'.repeat(50_000)} é 🌍`;
  const shared = sharedTextBytes(Buffer.byteLength(text));
  shared.write(text);
  const dbs = [await openPglite(undefined)];
  if (process.env.DATABASE_URL) dbs.push(await openPostgres(process.env.DATABASE_URL, `text_bytes_${process.pid}`));
  for (const db of dbs) {
    try {
      await db.tx(async (q) => {
        await q.exec('CREATE TEMP TABLE t (n int, s text)');
        await q.query('INSERT INTO t VALUES ($1, $2::text)', [1, new TextBytes(shared)]);
        await q.query('INSERT INTO t SELECT * FROM unnest($1::int[], $2::text[])', [[2, 3], ['plain', new TextBytes(Buffer.from(text))]]);
        const rows = await q.query<{ n: number; s: string }>('SELECT n, s FROM t ORDER BY n');
        assert.deepEqual(rows.map((r) => [r.n, r.s === text ? 'text' : r.s]), [[1, 'text'], [2, 'plain'], [3, 'text']], db.kind);
      });
    } finally {
      if (db.kind === 'postgres') await db.exec(`DROP SCHEMA text_bytes_${process.pid} CASCADE`);
      await db.close();
    }
  }
});
