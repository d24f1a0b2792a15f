#!/usr/bin/env node
// npm run bench:mcp — the MCP gateway benchmark (issue 3 item 8).
//
// Starts a real MCP upstream (official SDK, stateful session, JSON answers) and a Tollgate (`tollgate serve`,
// PostgreSQL with DATABASE_URL (API and gateway then run as separate processes), else embedded) in their own processes, configures a proxy through
// the management API with a realistic rule set (an ip_acl, a rate_limit that does not fire, a response_replace and a
// static_cache whose lookups all miss), then drives tools/call and tools/list directly and through the gateway at 1,
// 16 and 64 concurrent connections. Prints requests/s, p50 and p99 for both, the ratio, the gateway process's CPU
// time per request (utime+stime from /proc over the measured window / requests) and its peak RSS (VmHWM).
// With `taskset` available, the gateway is pinned to core 0 and the upstream and this load generator to the other
// cores. Options: --seconds N (per measurement, default 5), --conns 1,16,64, --sse (upstream answers with SSE),
// --rules T1,T2 (only those rule types of the set), --no-rules,
// --redis (counters and cache in the Redis of REDIS_URL instead of in-process state), --embedded (PGlite even when
// DATABASE_URL is set).
/* global setTimeout */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { tollgateBin, api, args, cpuSeconds, printTargets, hasTaskset, moveLoadGeneratorOffCore0, ncpu, opt, otherCores, peakRssMb, root, start } from './common.mjs';

const SECONDS = Number(opt('seconds', '5'));
const CONNS = opt('conns', '1,16,64').split(',').map(Number);
const SSE = args.includes('--sse');
const KINDS = opt('kinds', 'tools/call,tools/list').split(',');
// --gateway-only: skip the direct and bare-proxy runs (profiling the gateway).
const GATEWAY_ONLY = args.includes('--gateway-only');
const WARMUP_MS = 1000;
// With DATABASE_URL the bench uses PostgreSQL in a throw-away schema (--embedded forces PGlite).
const PG = !!process.env.DATABASE_URL && !args.includes('--embedded');
const SCHEMA = `bench_${randomBytes(4).toString('hex')}`;

moveLoadGeneratorOffCore0(import.meta.url);

// --nice N: run the measured processes (gateway, bare proxy) at that niceness (negative needs root), so that other
// work on a shared machine disturbs the measurement less.
const NICE = opt('nice', '');
const startProc = (name, cores, argv, env, patterns) => start(name, cores, argv, env, patterns, { nice: NICE });

const cpuTotal = (pid) => {
  const c = cpuSeconds(pid);
  return c.user + c.sys;
};

/** The node process under `taskset` (taskset execs, so it is the same pid). */
const gatewayPid = (child) => child.pid;

const ACCEPT = 'application/json, text/event-stream';

async function openSession(pool, path, auth) {
  // A separate gateway process learns about new config by pub/sub (Redis) or its version poll: wait for it.
  for (let i = 0; i < 40; i++) {
    const r = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...auth }, body: '{"jsonrpc":"2.0","id":0,"method":"ping"}' });
    const text = await r.body.text();
    if (!(r.statusCode === 401 || (r.statusCode === 404 && text.includes('Proxy not found')))) break;
    await new Promise((res) => setTimeout(res, 250));
  }
  const h = { 'content-type': 'application/json', accept: ACCEPT, ...auth };
  const r = await pool.request({ path, method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) });
  await r.body.text();
  const sid = r.headers['mcp-session-id'];
  if (r.statusCode !== 200 || !sid) throw new Error(`initialize failed: ${r.statusCode}`);
  const n = await pool.request({ path, method: 'POST', headers: { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await n.body.text();
  return { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
}

let seq = 0;
function body(kind) {
  const id = ++seq;
  if (kind === 'tools/list') return `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`;
  // Unique arguments: every static_cache lookup misses (and the answer is stored), as a realistic first call does.
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"order ${id} for card 4111-1111-1111-1111"}}}`;
}

async function drive(pool, path, headers, kind, conns, ms, onStart) {
  const lat = [];
  let errors = 0;
  let measuring = false;
  let stop = false;
  let count = 0;
  const worker = async () => {
    while (!stop) {
      const t0 = process.hrtime.bigint();
      try {
        const r = await pool.request({ path, method: 'POST', headers, body: body(kind) });
        const text = await r.body.text();
        if (r.statusCode !== 200 || text.includes('"error"')) errors++;
      } catch {
        errors++;
      }
      if (measuring) {
        lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
        count++;
      }
    }
  };
  const workers = Array.from({ length: conns }, worker);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const before = onStart?.();
  measuring = true;
  errors = 0;
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, ms));
  measuring = false;
  const elapsed = (Date.now() - t0) / 1000;
  const after = onStart?.();
  stop = true;
  await Promise.all(workers);
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN;
  return { rps: count / elapsed, p50: q(0.5), p99: q(0.99), count, errors, cpu: before !== undefined ? (after - before) : undefined };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  const upstream = await startProc('upstream', otherCores, [join(root, 'bench/mcp-upstream.mjs'), SSE ? 'sse' : 'json'], {}, { url: /UPSTREAM (\S+)/ });
  const common = {
    TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0',
    TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_LOG_LEVEL: 'info',
    TOLLGATE_CONFIG_POLL_MS: '500',
  };
  const children = [upstream.child];
  let tg;
  let apiProc;
  let pat;
  try {
    if (PG) {
      // Production topology: the API and the gateway are separate processes on one PostgreSQL; the gateway's audit
      // inserts run in the PostgreSQL server, so the gateway's CPU is its own.
      Object.assign(common, { TOLLGATE_DB_SCHEMA: SCHEMA, TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64') });
      const cli = (...a) => {
        const r = spawnSync(process.execPath, [tollgateBin, ...a], { cwd: root, env: { ...process.env, ...common }, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`tollgate ${a.join(' ')}: ${r.stderr}`);
        return r.stdout.trim();
      };
      cli('admin', 'user', 'create', '--email', 'bench@localhost');
      pat = cli('admin', 'token', 'issue', '--email', 'bench@localhost').split(/\s+/).find((w) => w.startsWith('svc_pat_'));
      apiProc = await startProc('api', otherCores, [tollgateBin, 'serve', '--role', 'api'], common, { api: /"msg":"management API listening".*?"url":"([^"]+)"/ });
      children.push(apiProc.child);
      const extra = process.env.TOLLGATE_BENCH_GATEWAY_NODE_ARGS ? process.env.TOLLGATE_BENCH_GATEWAY_NODE_ARGS.split(' ') : [];
      tg = await startProc('gateway', '0', [...extra, tollgateBin, 'serve', '--role', 'gateway'], common, { gateway: /"msg":"gateway listening".*?"url":"([^"]+)"/ });
      tg.api = apiProc.api;
    } else {
      const base = { ...common, TOLLGATE_DATA_DIR: dataDir, TOLLGATE_MASTER_KEY: '', DATABASE_URL: '' };
      tg = await startProc('tollgate', '0', [tollgateBin, 'serve'], base, {
        pat: /(svc_pat_[A-Za-z0-9_-]+)/,
        api: /"msg":"management API listening".*?"url":"([^"]+)"/,
        gateway: /"msg":"gateway listening".*?"url":"([^"]+)"/,
      });
      pat = tg.pat;
    }
  } catch (e) {
    for (const c of children) c.kill();
    throw e;
  }
  children.push(tg.child);
  const bare = await startProc('bare proxy', '0', [join(root, 'bench/bare-proxy.mjs'), new URL(upstream.url).origin], {}, { url: /BARE (\S+)/ });
  children.push(bare.child);
  const pid = gatewayPid(tg.child);
  try {
    const { server } = await api(tg.api, pat, 'POST', '/api/mcp', { name: 'bench', url: upstream.url });
    await api(tg.api, pat, 'POST', `/api/mcp/${server.id}/tools`);
    // --rules ip_acl,static_cache keeps only those rule types of the set (what each one costs).
    const only = opt('rules', '');
    const rules = [
      { rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.0/8', '::1/128'] },
      { rule_type: 'rate_limit', tools: ['*'], name: 'generous', match_key: 'api_key', threshold: 1_000_000_000, timespan: 60 },
      { rule_type: 'response_replace', tools: ['*'], pattern: '\\b\\d{4}-\\d{4}-\\d{4}-(\\d{4})\\b', replacement: '[card $1]', regex_flags: '' },
      { rule_type: 'static_cache', tools: ['echo'], cache_ttl: 60, cache_isolation: 'per_identity' },
    ].filter((r) => !only || only.split(',').includes(r.rule_type));
    if (!args.includes('--no-rules')) await api(tg.api, pat, 'PUT', `/api/mcp/${server.id}/rules`, { rules });
    const { key } = await api(tg.api, pat, 'POST', '/api/keys', { name: 'bench', mcpPermissions: [{ id: server.id, tools: ['*'] }] });

    const up = new URL(upstream.url);
    const gw = new URL(tg.gateway);
    const rows = [];
    for (const kind of KINDS) {
      for (const conns of CONNS) {
        const directPool = new Pool(up.origin, { connections: conns });
        const gwPool = new Pool(gw.origin, { connections: conns });
        const barePool = new Pool(bare.url, { connections: conns });
        const dh = await openSession(directPool, up.pathname, {});
        const gh = await openSession(gwPool, `/${server.id}/`, { authorization: `Bearer ${key.key}` });
        const bh = await openSession(barePool, up.pathname, {});
        const skipped = { rps: NaN, p50: NaN, p99: NaN, count: 1, errors: 0, cpu: NaN };
        const d = GATEWAY_ONLY ? skipped : await drive(directPool, up.pathname, dh, kind, conns, SECONDS * 1000);
        const g = await drive(gwPool, `/${server.id}/`, gh, kind, conns, SECONDS * 1000, () => cpuTotal(pid));
        const b = GATEWAY_ONLY ? skipped : await drive(barePool, up.pathname, bh, kind, conns, SECONDS * 1000, () => cpuTotal(bare.child.pid));
        rows.push({ kind, conns, d, g, b });
        await directPool.close();
        await gwPool.close();
        await barePool.close();
        printRow(rows.at(-1));
      }
    }
    const rss = peakRssMb(pid);
    console.log(`\ngateway peak RSS (VmHWM): ${rss.toFixed(1)} MB`);
    printTargets('targets (issue 3: gateway pinned to one core, the realistic rule set on)', targetChecks(rows, rss));
    console.log(`gateway pinned to core 0: ${hasTaskset ? 'yes' : 'no (taskset not available)'}; cores: ${ncpu}; upstream: SDK McpServer, ${SSE ? 'SSE' : 'JSON'} answers; datastores: ${PG ? 'PostgreSQL (API and gateway in separate processes)' : 'embedded PGlite (API, database and gateway in one process)'} + ${args.includes('--redis') && process.env.REDIS_URL ? 'Redis' : 'in-process state'}`);
    console.log('bare proxy = node:http + undici passthrough with no auth, rules or events (bench/bare-proxy.mjs), pinned to the same core: the floor of any Node proxy here.');
    console.log(JSON.stringify({ rows: rows.map(({ kind, conns, d, g, b }) => ({ kind, conns, direct: round(d), gateway: round(g), bareProxy: round(b) })), peakRssMb: Math.round(rss) }));
  } finally {
    for (const c of children) c.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    if (PG) spawnSync('psql', [process.env.DATABASE_URL, '-c', `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`], { stdio: 'ignore' });
  }
}

function targetChecks(rows, rss) {
  const us = (r) => (r.cpu / r.count) * 1e6;
  const calls = rows.filter((r) => r.kind === 'tools/call');
  const checks = calls.map((r) => ({ what: `CPU per tools/call, ${r.conns} conns`, unit: 'µs', target: 150, gateway: us(r.g), bare: us(r.b) }));
  const one = calls.find((r) => r.conns === 1);
  if (one) checks.push({ what: 'added p50, tools/call, 1 conn', unit: 'ms', target: 0.2, gateway: one.g.p50 - one.d.p50, bare: one.b.p50 - one.d.p50 });
  const at64 = rows.filter((r) => r.conns === 64);
  if (at64.length) checks.push({ what: 'errors at 64 conns', unit: '', target: 0, gateway: at64.reduce((n, r) => n + r.g.errors, 0) });
  checks.push({ what: 'gateway peak RSS', unit: 'MB', target: 150, gateway: rss });
  return checks;
}

function round(r) {
  return { rps: Math.round(r.rps), p50Ms: +r.p50.toFixed(3), p99Ms: +r.p99.toFixed(3), errors: r.errors, ...(r.cpu !== undefined ? { cpuUsPerReq: Math.round((r.cpu / r.count) * 1e6) } : {}) };
}

let header = false;
function printRow({ kind, conns, d, g, b }) {
  if (!header) {
    console.log('method      conns | direct rps   p50 ms   p99 ms | gateway rps   p50 ms   p99 ms  errors  CPU µs/req | rps ratio  added p50 ms | bare proxy CPU µs/req  added p50 ms');
    header = true;
  }
  const pad = (v, n) => String(v).padStart(n);
  console.log(`${kind.padEnd(11)} ${pad(conns, 5)} | ${pad(d.rps.toFixed(0), 10)} ${pad(d.p50.toFixed(3), 8)} ${pad(d.p99.toFixed(3), 8)} | ${pad(g.rps.toFixed(0), 11)} ${pad(g.p50.toFixed(3), 8)} ${pad(g.p99.toFixed(3), 8)} ${pad(g.errors + d.errors, 7)} ${pad(((g.cpu / g.count) * 1e6).toFixed(0), 11)} | ${pad((g.rps / d.rps).toFixed(2), 9)} ${pad((g.p50 - d.p50).toFixed(3), 13)} | ${pad(((b.cpu / b.count) * 1e6).toFixed(0), 21)} ${pad((b.p50 - d.p50).toFixed(3), 13)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
