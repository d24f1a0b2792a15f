#!/usr/bin/env node
// npm run bench:round-trips — state-store commands and round trips per gateway request, counted on the wire.
//
// Runs a Tollgate on PostgreSQL + Redis (DATABASE_URL, REDIS_URL; a throw-away schema and key prefix), the API and
// the gateway as separate processes, with the benchmark policies: an LLM proxy with bench:llm's rules (ip_acl,
// rate_limit on api_key) and monthly hard budget, and an MCP proxy with bench:mcp's rule set (ip_acl, rate_limit,
// response_replace, static_cache that misses). The gateway reaches Redis and PostgreSQL through two counting relays in
// this process, so only its own traffic is counted although the servers are shared with other work:
//   - Redis: every command of the RESP stream, by command and key family (rl:, budget:…:r, cache …);
//   - PostgreSQL: every statement the extended or simple protocol executes, by its first keyword and table;
//   - round trips: a client write that follows an answer of the server on the same connection (a pipeline, a
//     MULTI/EXEC, an EVALSHA or commands written back to back before the first answer count once).
// Requests are sent one at a time (--requests N of each kind, default 200), so the round trips of one request are not
// merged with another's; the background traffic of an idle window of the same length (pub/sub, timers) is subtracted.
// Batched writes (audit events, usage, charges: flushed every 250 ms) count per flush, so their share per request
// falls as the rate rises: the figure here is at one request in flight. INFO commandstats before/after is printed too,
// as a cross-check (it includes every other client of that Redis).
/* global setTimeout, Buffer */
import { createServer, connect } from 'node:net';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Pool } from 'undici';
import { api, issueBenchPat, opt, otherCores, root, start, tollgateBin } from './common.mjs';
import { benchRules, openSession, requestBody } from './mcp-setup.mjs';

const N = Number(opt('requests', '200'));
const WARMUP = Number(opt('warmup', '100'));
const { DATABASE_URL, REDIS_URL } = process.env;
if (!DATABASE_URL || !REDIS_URL) {
  console.error('bench:round-trips needs DATABASE_URL and REDIS_URL (PostgreSQL + Redis topology)');
  process.exit(2);
}

/** Counts per label and round trips across all connections of a relay. */
class Tally {
  constructor() { this.counts = new Map(); this.roundTrips = 0; }
  add(label) { this.counts.set(label, (this.counts.get(label) ?? 0) + 1); }
  snapshot() { return { counts: new Map(this.counts), roundTrips: this.roundTrips }; }
}

/**
 * A TCP relay to `target` that feeds the client's bytes to `parser(tally)` (a function taking each chunk) and counts
 * a round trip for each client chunk that follows server bytes (or opens the connection).
 */
function relay(target, tally, makeParser) {
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const parse = makeParser(tally);
    let answered = true;
    client.on('data', (c) => {
      if (answered) tally.roundTrips++;
      answered = false;
      parse(c);
      upstream.write(c);
    });
    upstream.on('data', (c) => {
      answered = true;
      client.write(c);
    });
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })));
}

/** The family of a Redis key without the bench prefix: what the command is for. */
function keyFamily(key, prefix) {
  const k = key.startsWith(prefix) ? key.slice(prefix.length) : key;
  if (k.startsWith('budget:')) return `budget:…:${k.split(':')[3] ?? ''}`;
  return `${k.split(':')[0]}:…`;
}

/** RESP request parser: each complete array `*n $len arg…` is one command, labelled "COMMAND key-family". */
function respParser(prefix) {
  return (tally) => {
    let buf = Buffer.alloc(0);
    const line = (at) => {
      const e = buf.indexOf('\r\n', at);
      return e < 0 ? undefined : { text: buf.toString('latin1', at, e), next: e + 2 };
    };
    const one = () => {
      const head = line(0);
      if (!head) return false;
      const n = Number(head.text.slice(1));
      const argv = [];
      let at = head.next;
      for (let i = 0; i < n; i++) {
        const len = line(at);
        if (!len || buf.length < len.next + Number(len.text.slice(1)) + 2) return false;
        if (i < 4) argv.push(buf.toString('latin1', len.next, len.next + Number(len.text.slice(1))));
        at = len.next + Number(len.text.slice(1)) + 2;
      }
      buf = buf.subarray(at);
      const cmd = argv[0].toUpperCase();
      // EVALSHA sha numkeys key…: the key is the fourth word.
      const key = cmd === 'EVALSHA' || cmd === 'EVAL' ? argv[3] : argv[1];
      tally.add(key !== undefined && !['CLIENT', 'INFO', 'SUBSCRIBE', 'PUBLISH', 'SELECT'].includes(cmd) ? `${cmd} ${keyFamily(key, prefix)}` : cmd);
      return true;
    };
    return (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length && one()) { /* parse every complete command */ }
    };
  };
}

/** The table a statement is about, for a label like "INSERT events" (schema-qualified names lose the schema). */
function statementLabel(sql) {
  const verb = (/^\s*(\w+)/.exec(sql)?.[1] ?? '?').toUpperCase();
  const m = /\b(?:into|update|from|join)\s+("?[\w]+"?\.)?"?(\w+)"?/i.exec(sql);
  return m && !['BEGIN', 'COMMIT', 'ROLLBACK'].includes(verb) ? `${verb} ${m[2]}` : verb;
}

/**
 * PostgreSQL frontend parser: after the untyped startup (and SSLRequest) messages, typed messages; a statement is a
 * simple Query ('Q') or an Execute ('E') of the statement its Parse ('P') named (unnamed or named).
 */
function pgParser(tally) {
  let buf = Buffer.alloc(0);
  let startup = true;
  const named = new Map();
  let lastParsed = '?';
  const typed = (type, body) => {
    if (type === 'Q') tally.add(statementLabel(body.toString('utf8', 0, body.length - 1)));
    if (type === 'P') {
      const nameEnd = body.indexOf(0);
      const sql = body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1));
      lastParsed = sql;
      if (nameEnd > 0) named.set(body.toString('utf8', 0, nameEnd), sql);
    }
    if (type === 'B') {
      // Bind: portal name\0 statement name\0 — a named statement parsed on an earlier request.
      const p = body.indexOf(0);
      const stmt = body.toString('utf8', p + 1, body.indexOf(0, p + 1));
      if (stmt) lastParsed = named.get(stmt) ?? lastParsed;
    }
    if (type === 'E') tally.add(statementLabel(lastParsed));
  };
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (startup) {
        if (buf.length < 8) return;
        const len = buf.readInt32BE(0);
        if (buf.length < len) return;
        // 80877103: SSLRequest (the server answers N and the startup message follows); anything else is the startup.
        if (buf.readInt32BE(4) !== 80877103) startup = false;
        buf = buf.subarray(len);
        continue;
      }
      if (buf.length < 5) return;
      const len = buf.readInt32BE(1);
      if (buf.length < len + 1) return;
      typed(String.fromCharCode(buf[0]), buf.subarray(5, len + 1));
      buf = buf.subarray(len + 1);
    }
  };
}

function diff(a, b) {
  const out = new Map();
  for (const [k, v] of b.counts) if (v - (a.counts.get(k) ?? 0)) out.set(k, v - (a.counts.get(k) ?? 0));
  return { counts: out, roundTrips: b.roundTrips - a.roundTrips };
}

function commandstats() {
  const r = spawnSync('redis-cli', ['-u', REDIS_URL, 'INFO', 'commandstats'], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  return [...r.stdout.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].reduce((n, m) => n + Number(m[2]), 0);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const FLUSH_WAIT_MS = 1500; // the audit and accounting writers flush every 250 ms

/** Counts both relays over `run()` and an idle window as long; returns per-request figures. */
async function measure(redis, pg, run) {
  const idle0 = [redis.snapshot(), pg.snapshot()];
  const t0 = Date.now();
  await sleep(FLUSH_WAIT_MS);
  const idle1 = [redis.snapshot(), pg.snapshot()];
  const idleMs = Date.now() - t0;
  const stats0 = commandstats();
  const t1 = Date.now();
  await run();
  await sleep(FLUSH_WAIT_MS);
  const busyMs = Date.now() - t1;
  const busy1 = [redis.snapshot(), pg.snapshot()];
  const stats1 = commandstats();
  const scale = busyMs / idleMs;
  const per = (i) => {
    const busy = diff(idle1[i], busy1[i]);
    const idle = diff(idle0[i], idle1[i]);
    const counts = new Map();
    for (const [k, v] of busy.counts) {
      const x = (v - (idle.counts.get(k) ?? 0) * scale) / N;
      if (x > 0.004) counts.set(k, x);
    }
    return { counts, roundTrips: Math.max(0, busy.roundTrips - idle.roundTrips * scale) / N };
  };
  return { redis: per(0), pg: per(1), infoCallsPerRequest: stats0 !== undefined ? (stats1 - stats0) / N : undefined };
}

function print(title, m) {
  console.log(`\n${title}`);
  for (const [store, r] of [['Redis', m.redis], ['PostgreSQL', m.pg]]) {
    const total = [...r.counts.values()].reduce((a, b) => a + b, 0);
    console.log(`  ${store}: ${total.toFixed(2)} commands/statements, ${r.roundTrips.toFixed(2)} round trips per request`);
    for (const [k, v] of [...r.counts].sort((a, b) => b[1] - a[1])) console.log(`    ${v.toFixed(2).padStart(6)}  ${k}`);
  }
  if (m.infoCallsPerRequest !== undefined) console.log(`  INFO commandstats (all clients of that Redis): ${m.infoCallsPerRequest.toFixed(2)} calls per request`);
}

const serialize = (m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v && typeof v === 'object' ? { roundTrips: +v.roundTrips.toFixed(3), counts: Object.fromEntries([...v.counts].map(([a, b]) => [a, +b.toFixed(3)])) } : v]));

async function sequential(n, one) {
  for (let i = 0; i < n; i++) await one();
}

async function main() {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const prefix = `bench-rt-${randomBytes(4).toString('hex')}:`;
  const redisTally = new Tally();
  const pgTally = new Tally();
  const ru = new URL(REDIS_URL);
  const pu = new URL(DATABASE_URL);
  const redisRelay = await relay({ host: ru.hostname, port: Number(ru.port || 6379) }, redisTally, respParser(prefix));
  const pgRelay = await relay({ host: pu.hostname, port: Number(pu.port || 5432) }, pgTally, pgParser);
  const children = [];
  const proc = async (...a) => {
    const p = await start(...a);
    children.push(p.child);
    return p;
  };
  try {
    const llmUp = await proc('llm upstream', otherCores, [join(root, 'bench/llm-upstream.mjs')], {}, { url: /UPSTREAM (\S+)/ });
    const mcpUp = await proc('mcp upstream', otherCores, [join(root, 'bench/mcp-upstream.mjs'), 'json'], {}, { url: /UPSTREAM (\S+)/ });
    const env = {
      TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0', TOLLGATE_LOG_LEVEL: 'info',
      TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_CONFIG_POLL_MS: '500',
      TOLLGATE_PROVIDER_BASE_URL_OPENAI: llmUp.url, TOLLGATE_DB_SCHEMA: schema, TOLLGATE_REDIS_PREFIX: prefix,
      TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64'), REDIS_URL,
    };
    const pat = issueBenchPat(env);
    const apiProc = await proc('api', otherCores, [tollgateBin, 'serve', '--role', 'api'], env, { api: /"msg":"management API listening".*?"url":"([^"]+)"/ });
    const pgUrl = new URL(DATABASE_URL);
    pgUrl.host = `127.0.0.1:${pgRelay.port}`;
    const gwEnv = { ...env, DATABASE_URL: pgUrl.href, REDIS_URL: `redis://127.0.0.1:${redisRelay.port}${ru.pathname}` };
    const gw = await proc('gateway', '0', [tollgateBin, 'serve', '--role', 'gateway'], gwEnv, { gateway: /"msg":"gateway listening".*?"url":"([^"]+)"/ });

    const llm = await api(apiProc.api, pat, 'POST', '/api/llm', { name: 'bench', provider: 'openai', providerKey: 'sk-bench-provider-key', budget: { period: 'monthly', capUsd: 1_000_000, hardBlock: true } });
    await api(apiProc.api, pat, 'PUT', `/api/llm/${llm.id}/rules`, { rules: [
      { rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.0/8', '::1/128'] },
      { rule_type: 'rate_limit', tools: ['*'], name: 'generous', match_key: 'api_key', threshold: 1_000_000_000, timespan: 60 },
    ] });
    const { server } = await api(apiProc.api, pat, 'POST', '/api/mcp', { name: 'bench', url: mcpUp.url });
    await api(apiProc.api, pat, 'POST', `/api/mcp/${server.id}/tools`);
    await api(apiProc.api, pat, 'PUT', `/api/mcp/${server.id}/rules`, { rules: benchRules() });
    const { key } = await api(apiProc.api, pat, 'POST', '/api/keys', { name: 'bench', llmPermissions: [{ id: llm.id, models: ['*'] }], mcpPermissions: [{ id: server.id, tools: ['*'] }] });

    const pool = new Pool(new URL(gw.gateway).origin, { connections: 1 });
    const auth = { authorization: `Bearer ${key.key}` };
    const llmPath = `/${llm.id}/v1/chat/completions`;
    let seq = 0;
    const completion = async () => {
      const body = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 256, messages: [{ role: 'user', content: `Question ${++seq}: what is the capital of France?` }] });
      const r = await pool.request({ path: llmPath, method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body });
      const text = await r.body.text();
      if (r.statusCode !== 200) throw new Error(`completion: ${r.statusCode} ${text}`);
    };
    const mcpHeaders = await openSession(pool, `/${server.id}/`, auth);
    const toolsCall = async () => {
      const r = await pool.request({ path: `/${server.id}/`, method: 'POST', headers: mcpHeaders, body: requestBody('tools/call') });
      const text = await r.body.text();
      if (r.statusCode !== 200 || text.includes('"error"')) throw new Error(`tools/call: ${r.statusCode} ${text}`);
    };
    for (let i = 0; i < 60; i++) {
      try { await completion(); break; } catch (e) { if (i === 59) throw e; await sleep(250); }
    }
    await sequential(WARMUP, completion);
    await sequential(WARMUP, toolsCall);
    const llmM = await measure(redisTally, pgTally, () => sequential(N, completion));
    const mcpM = await measure(redisTally, pgTally, () => sequential(N, toolsCall));
    await pool.close();
    const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
    console.log(`state-store traffic of the gateway process per request (${N} requests of each kind, one in flight; ${new Date().toISOString().slice(0, 10)}, commit ${commit}${spawnSync('git', ['diff', '--quiet', 'HEAD'], { cwd: root }).status ? ' + uncommitted changes' : ''})`);
    print('LLM chat completion (ip_acl, rate_limit on api_key, monthly hard budget, accounting, audit event)', llmM);
    print('MCP tools/call (ip_acl, rate_limit, response_replace, static_cache miss, audit event)', mcpM);
    console.log(JSON.stringify({ requests: N, llm: serialize(llmM), mcp: serialize(mcpM) }));
  } finally {
    for (const c of children) c.kill('SIGTERM');
    redisRelay.server.close();
    pgRelay.server.close();
    spawnSync('psql', [DATABASE_URL, '-c', `DROP SCHEMA IF EXISTS ${schema} CASCADE`], { stdio: 'ignore' });
    const left = spawnSync('redis-cli', ['-u', REDIS_URL, '--scan', '--pattern', `${prefix}*`], { encoding: 'utf8' }).stdout?.split('\n').filter(Boolean) ?? [];
    if (left.length) spawnSync('redis-cli', ['-u', REDIS_URL, 'DEL', ...left]);
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
