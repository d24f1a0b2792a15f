#!/usr/bin/env node
// npm run bench:snapshot-load: what one gateway config reload costs with many tenants. Every change (a key, a rule,
// a proxy, anyone's) makes each gateway load a new snapshot of every tenant's proxies and keys
// (server/src/snapshot/load.ts). Here --users users, each with one MCP server (twelve tools in its catalog), one LLM
// proxy, two rules on each and five client keys, are written straight into the database; the snapshot is then
// loaded --runs times while a 1 ms interval timer on the main thread records the gaps between its ticks: the longest
// one is how long a reload holds back every request of that gateway.
// Embedded (PGlite on its thread) by default; with DATABASE_URL set, on that PostgreSQL in a schema of its own,
// dropped at the end. Options: --users N (default 2000), --runs N (default 4).
// It then measures the reload a gateway makes after a change: the keys of --changed users (default 1, then 50) are
// rewritten and bumped, and the snapshot is reloaded from the previous one, reading only those users again.
import { randomBytes } from 'node:crypto';
import { openBenchDb, opt, root, withTickGaps } from './common.mjs';
import { insertTenants } from './tenants.mjs';

const USERS = Number(opt('users', '2000'));
const RUNS = Number(opt('runs', '4'));
const dist = `${root}server/dist/`;
const { SecretBox } = await import(`${dist}crypto/secrets.js`);
const { loadConfig } = await import(`${dist}snapshot/load.js`);
const { bumpConfigVersion } = await import(`${dist}snapshot/changes.js`);

const bench = await openBenchDb('bench_snapshot');
const db = bench.db;
await insertTenants(db, USERS);
// As the API does after a change: the bump stamps the rows' owners that the triggers recorded.
await db.tx((q) => bumpConfigVersion(q));
const box = new SecretBox(randomBytes(32));

console.log(`${bench.what}, ${USERS} users`);
console.log('| run | proxies | keys | snapshot loaded in | longest gap of the event loop |');
console.log('|---|---|---|---|---|');
let loaded;
for (let r = 1; r <= RUNS; r++) {
  const { value, ms, gaps } = await withTickGaps(() => loadConfig(db, box));
  loaded = value;
  console.log(`| ${r} | ${value.snapshot.proxies.size} | ${value.snapshot.credentialsByHash.size} | ${ms.toFixed(0)} ms | ${Math.max(...gaps).toFixed(1)} ms |`);
}

console.log('\nA reload after a change (the users whose keys changed are read again; the rest are kept):');
console.log('| users changed | reload in | longest gap of the event loop |');
console.log('|---|---|---|');
for (const changed of (opt('changed', '') ? [Number(opt('changed', ''))] : [1, 50])) {
  for (let r = 1; r <= RUNS; r++) {
    await db.tx(async (q) => {
      await q.query(`UPDATE credentials SET tags = array_append(tags, 'run:${changed}-${r}')
                      WHERE consumer_id IN (SELECT md5('c'||i)::uuid FROM generate_series(1, ${changed}) i)`);
      await bumpConfigVersion(q);
    });
    const { value, ms, gaps } = await withTickGaps(() => loadConfig(db, box, loaded));
    loaded = value;
    console.log(`| ${changed} | ${ms.toFixed(1)} ms | ${Math.max(...gaps).toFixed(1)} ms |`);
  }
}
await bench.close();
