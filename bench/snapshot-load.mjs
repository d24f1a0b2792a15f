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

const USERS = Number(opt('users', '2000'));
const RUNS = Number(opt('runs', '4'));
const dist = `${root}server/dist/`;
const { SecretBox } = await import(`${dist}crypto/secrets.js`);
const { loadConfig } = await import(`${dist}snapshot/load.js`);
const { bumpConfigVersion } = await import(`${dist}snapshot/changes.js`);

const bench = await openBenchDb('bench_snapshot');
const db = bench.db;
const tool = (i) => ({
  name: `tool_${i}`, description: 'Looks a thing up and says what it found, with the sources it used. '.repeat(3),
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, fingerprint: 'f'.repeat(64),
});
const tools = JSON.stringify(Array.from({ length: 12 }, (_, i) => tool(i)));
const rules = JSON.stringify([
  { rule_type: 'ip_acl', enabled: true, tools: ['*'], mode: 'allow', cidrs: ['10.0.0.0/8'] },
  { rule_type: 'rate_limit', enabled: true, tools: ['*'], requests: 100, window_seconds: 60 },
]);
const users = `generate_series(1, ${USERS}) i`;
await db.exec(`
INSERT INTO users (id, email, created_at) SELECT md5('u'||i)::uuid, 'u'||i||'@bench.test', 0 FROM ${users};
INSERT INTO consumers (id, user_id, username, tags) SELECT md5('c'||i)::uuid, md5('u'||i)::uuid, 'u'||i, ARRAY['private:permissions:user'] FROM ${users};
INSERT INTO mcp_servers (id, user_id, name, url, tools, created_at)
  SELECT md5('m'||i)::uuid, md5('u'||i)::uuid, 'm'||i, 'https://mcp.example.test/mcp', '${tools}'::jsonb, 0 FROM ${users};
INSERT INTO llm_proxies (id, user_id, name, provider, created_at) SELECT md5('l'||i)::uuid, md5('u'||i)::uuid, 'l'||i, 'openai', 0 FROM ${users};
INSERT INTO gateway_services (id, proxy_id, proxy_kind, user_id, upstream_url, created_at)
  SELECT md5('sm'||i)::uuid, md5('m'||i)::uuid, 'mcp', md5('u'||i)::uuid, 'https://mcp.example.test/mcp', 0 FROM ${users}
  UNION ALL SELECT md5('sl'||i)::uuid, md5('l'||i)::uuid, 'llm', md5('u'||i)::uuid, 'https://api.openai.com', 0 FROM ${users};
INSERT INTO gateway_routes (id, service_id, kind, match) SELECT gen_random_uuid(), id, 'path', '/'||proxy_id FROM gateway_services;
INSERT INTO gateway_routes (id, service_id, kind, match) SELECT gen_random_uuid(), id, 'host', proxy_id||'.proxy.localhost' FROM gateway_services;
INSERT INTO gateway_plugins (id, service_id, rules, updated_at) SELECT gen_random_uuid(), id, '${rules}'::jsonb, 0 FROM gateway_services;
INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, created_at)
  SELECT gen_random_uuid(), md5('c'||i)::uuid, md5('k'||i||'-'||j), 'tgk_ab',
         ARRAY['name:k'||j, 'private:permissions:mcp', 'mcp:'||md5('m'||i)::uuid||':tool:*', 'llm:'||md5('l'||i)::uuid||':model:*'], 0
    FROM ${users}, generate_series(1, 5) j;
`);
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
