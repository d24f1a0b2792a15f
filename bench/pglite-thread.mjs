#!/usr/bin/env node
/* global setInterval, clearInterval, setTimeout, performance */
// npm run bench:pglite-thread: how long the embedded database holds the event loop while the gateway records.
// The same audit-event batches (500 rows, the audit writer's batch) go, in one run, to PGlite on the main thread (the
// baseline: what embedded mode did before server/src/db/pglite-worker.ts) and to Tollgate's embedded database, which
// runs PGlite on a thread of its own (server/src/db/pglite.ts). A 1 ms interval timer on the main thread records the
// gaps between its ticks: a statement on the main thread shows as a gap as long as the statement.
// Options: --batches N (default 40), --rows N (default 500).
import { PGlite } from '@electric-sql/pglite';
import { args, opt, root } from './common.mjs';

const BATCHES = Number(opt('batches', '40'));
const ROWS = Number(opt('rows', '500'));
void args;
const dist = `${root}server/dist/`;
const { openPglite } = await import(`${dist}db/pglite.js`);
const { migrate } = await import(`${dist}db/migrate.js`);
const { insertAuditEvents } = await import(`${dist}audit/writer.js`);

/** The main-thread baseline, as the Db interface the writer takes. */
async function mainThreadPglite() {
  const pg = new PGlite();
  await pg.waitReady;
  const q = { query: async (sql, params) => (await pg.query(sql, params)).rows, exec: async (sql) => { await pg.exec(sql); } };
  return { ...q, kind: 'pglite', tx: (fn) => pg.transaction((t) => fn({ query: async (s, p) => (await t.query(s, p)).rows, exec: async (s) => { await t.exec(s); } })), withLock: (_id, fn) => fn(q), ping: async () => {}, close: () => pg.close() };
}

async function measure(db) {
  await migrate(db);
  // Shaped like the events of an LLM completion (what the gateway records most): about 400 characters of JSON each.
  const details = (i) => ({ status: 200, endpoint: 'chat', requested_model: 'gpt-4o-mini', streamed: false, input_tokens: 19 + (i % 7),
    cached_input_tokens: 0, output_tokens: 20, cost_cents: 0.0015, pricing_version: '2026-11-01' });
  const batch = Array.from({ length: ROWS }, (_, i) => ({ userId: null, timestamp: Date.now(), eventType: 'allow', clientIp: '127.0.0.1',
    llmUuid: '7d2a4f00-1b2c-4d5e-8f90-123456789abc', model: 'gpt-4o-mini', details: details(i) }));
  let last = performance.now();
  const gaps = [];
  const timer = setInterval(() => { const now = performance.now(); gaps.push(now - last); last = now; }, 1);
  for (let k = 0; k < BATCHES; k++) {
    await insertAuditEvents(db, batch);
    await new Promise((r) => setTimeout(r, 5));
  }
  clearInterval(timer);
  await db.close();
  gaps.sort((a, b) => a - b);
  const at = (p) => gaps[Math.min(gaps.length - 1, Math.floor(gaps.length * p))].toFixed(1);
  return { ticks: gaps.length, p50: at(0.5), p99: at(0.99), max: gaps.at(-1).toFixed(1) };
}

console.log(`${BATCHES} batches of ${ROWS} audit events; gaps between 1 ms timer ticks on the main thread (ms)`);
const base = await measure(await mainThreadPglite());
console.log(`PGlite on the main thread (baseline): ticks ${base.ticks}, p50 ${base.p50}, p99 ${base.p99}, max ${base.max}`);
const ours = await measure(await openPglite(undefined));
console.log(`Tollgate's embedded database (own thread): ticks ${ours.ticks}, p50 ${ours.p50}, p99 ${ours.p99}, max ${ours.max}`);
console.log(`max gap ratio (ours / baseline): ${(Number(ours.max) / Number(base.max)).toFixed(2)}`);
