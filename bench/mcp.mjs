#!/usr/bin/env node
// npm run bench:mcp — the MCP gateway benchmark (issue 3 item 8).
//
// Starts an MCP upstream (bench/mcp-upstream.mjs: raw JSON-RPC on node:http, or with --sdk-upstream the official
// SDK's server with stateful sessions) and a Tollgate (`tollgate serve`: PostgreSQL with DATABASE_URL, the API and the
// gateway then separate processes; else embedded) in their own processes, configures a proxy through the management
// API with a realistic rule set (an ip_acl, a rate_limit that does not fire, a response_replace and a static_cache
// whose lookups all miss), then drives tools/call and tools/list directly and through the gateway at 1, 16 and 64
// concurrent connections. Prints requests/s, p50 and p99 for both, the ratio, the gateway process's CPU time per
// request (utime+stime from /proc over the measured window / requests), its split by thread and its peak RSS
// (VmHWM). Then tools/call in an open loop at one fixed rate through the gateway and the bare proxy, each call timed
// from when it was due (the tail a call meets below saturation).
// With `taskset` available, the gateway is pinned to core 0 and the upstream and this load generator to the other
// cores. Options: --seconds N (per measurement, default 5), --conns 1,16,64, --sdk-upstream, --sse (the SDK upstream
// answers with SSE), --rules T1,T2 (only those rule types of the set), --no-rules, --rate-fraction F (the open loop's
// rate as a fraction of the gateway's tools/call throughput at 16 connections, default 0.5; 0 skips it), --rate N
// (per second), --redis (counters and cache in the Redis of REDIS_URL instead of in-process state), --embedded
// (PGlite even when DATABASE_URL is set).
/* global setTimeout */
import { Pool } from 'undici';
import { args, cpuSeconds, threadSampler, driveAtRate, openLoopRate, printOpenLoopRow, printTargets, quantile, ratioCheck, RSS_TARGET_MB, hasTaskset, moveLoadGeneratorOffCore0, ncpu, opt, peakRssMb } from './common.mjs';
import { openSession, requestBody, startMcpBench, upstreamLabel } from './mcp-setup.mjs';

const SECONDS = Number(opt('seconds', '5'));
const CONNS = opt('conns', '1,16,64').split(',').map(Number);
const SSE = args.includes('--sse');
const KINDS = opt('kinds', 'tools/call,tools/list').split(',');
// --gateway-only: skip the direct and bare-proxy runs (profiling the gateway).
const GATEWAY_ONLY = args.includes('--gateway-only');
const WARMUP_MS = 1000;
// With DATABASE_URL the bench uses PostgreSQL in a throw-away schema (--embedded forces PGlite).
const PG = !!process.env.DATABASE_URL && !args.includes('--embedded');

moveLoadGeneratorOffCore0(import.meta.url);

// --nice N: run the measured processes (gateway, bare proxy) at that niceness (negative needs root), so that other
// work on a shared machine disturbs the measurement less.
const NICE = opt('nice', '');
const RATE_FRACTION = Number(opt('rate-fraction', '0.5'));

const cpuTotal = (pid) => {
  const c = cpuSeconds(pid);
  return c.user + c.sys;
};


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
        const r = await pool.request({ path, method: 'POST', headers, body: requestBody(kind) });
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
  const b = await startMcpBench({ sse: SSE, pg: PG, nice: NICE });
  try {
    const up = new URL(b.upstream.url);
    const gw = new URL(b.gateway);
    const rows = [];
    for (const kind of KINDS) {
      for (const conns of CONNS) {
        const directPool = new Pool(up.origin, { connections: conns });
        const gwPool = new Pool(gw.origin, { connections: conns });
        const barePool = new Pool(b.bare.url, { connections: conns });
        const dh = await openSession(directPool, up.pathname, {});
        const gh = await openSession(gwPool, b.gatewayPath, b.auth);
        const bh = await openSession(barePool, up.pathname, {});
        const skipped = { rps: NaN, p50: NaN, p99: NaN, count: 1, errors: 0, cpu: NaN };
        const d = GATEWAY_ONLY ? skipped : await drive(directPool, up.pathname, dh, kind, conns, SECONDS * 1000);
        const threads = threadSampler(b.gatewayPid, cpuTotal);
        const g = await drive(gwPool, b.gatewayPath, gh, kind, conns, SECONDS * 1000, threads.sample);
        g.threads = threads.shares();
        const r = GATEWAY_ONLY ? skipped : await drive(barePool, up.pathname, bh, kind, conns, SECONDS * 1000, () => cpuTotal(b.barePid));
        rows.push({ kind, conns, d, g, b: r });
        await directPool.close();
        await gwPool.close();
        await barePool.close();
        printRow(rows.at(-1));
        console.log(`${' '.repeat(18)}gateway CPU by thread: ${threads.describe()}; peak RSS so far ${peakRssMb(b.gatewayPid).toFixed(0)} MB`);
      }
    }
    if (!GATEWAY_ONLY) await openLoop(rows, b);
    const rss = peakRssMb(b.gatewayPid);
    console.log(`\ngateway peak RSS (VmHWM): ${rss.toFixed(1)} MB`);
    printTargets('targets (issue 26: gateway pinned to one core, the realistic rule set on)', targetChecks(rows, rss));
    console.log(`gateway pinned to core 0: ${hasTaskset ? 'yes' : 'no (taskset not available)'}; cores: ${ncpu}; upstream: ${upstreamLabel(SSE)}; datastores: ${PG ? 'PostgreSQL (API and gateway in separate processes)' : 'embedded PGlite (API, database and gateway in one process)'} + ${args.includes('--redis') && process.env.REDIS_URL ? 'Redis' : 'in-process state'}`);
    console.log('bare proxy = node:http + undici passthrough with no auth, rules or events (bench/bare-proxy.mjs), pinned to the same core: the floor of any Node proxy here.');
    const closed = rows.filter((r) => r.kind !== 'open').map(({ kind, conns, d, g, b: r }) => ({ kind, conns, direct: round(d), gateway: round(g), bareProxy: round(r) }));
    const open = rows.filter((r) => r.kind === 'open').map(({ rate, g, b: r }) => ({ kind: 'open loop', rate, gateway: g, bareProxy: r }));
    console.log(JSON.stringify({ rows: [...closed, ...open], peakRssMb: Math.round(rss) }, (_k, v) => (typeof v === 'number' ? +v.toFixed(3) : v)));
  } finally {
    b.stop();
  }
}

/** One MCP request whose latency counts from when the open loop had it due. */
function dueRequest(pool, path, headers, kind) {
  return async (dueNs) => {
    const r = await pool.request({ path, method: 'POST', headers, body: requestBody(kind) });
    const text = await r.body.text();
    if (r.statusCode !== 200 || text.includes('"error"')) throw new Error(`status ${r.statusCode}`);
    return Number(process.hrtime.bigint() - dueNs) / 1e6;
  };
}

/**
 * tools/call through the gateway and the bare proxy at one fixed rate, a fraction (--rate-fraction, default 0.5) of
 * the gateway's closed-loop throughput at 16 connections (or --rate N per second), timed from when each was due.
 */
async function openLoop(rows, b) {
  const calls = rows.filter((r) => r.kind === 'tools/call');
  const ref = calls.find((r) => r.conns === 16) ?? calls.at(-1);
  const rate = openLoopRate(ref, RATE_FRACTION, 'tools/call');
  if (!rate) return;
  const measure = async (origin, path, auth, pid) => {
    const pool = new Pool(origin, { connections: 64 });
    const h = await openSession(pool, path, auth);
    const res = await driveAtRate(rate, SECONDS * 1000, WARMUP_MS, dueRequest(pool, path, h, 'tools/call'), () => cpuSeconds(pid));
    await pool.close();
    const cpu = res.cpu.user + res.cpu.sys;
    return { p50: quantile(res.samples, 0.5), p99: quantile(res.samples, 0.99), errors: res.errors, cpuUs: (cpu / res.samples.length) * 1e6 };
  };
  const g = await measure(new URL(b.gateway).origin, b.gatewayPath, b.auth, b.gatewayPid);
  const r = await measure(b.bare.url, new URL(b.upstream.url).pathname, {}, b.barePid);
  rows.push({ kind: 'open', conns: 0, rate, g, b: r });
  printOpenLoopRow(rate, g, r);
}

function targetChecks(rows, rss) {
  const perCall = (m) => m.cpu / m.count;
  const calls = rows.filter((r) => r.kind === 'tools/call' && r.conns > 1);
  const checks = calls.map((r) => ratioCheck(`CPU per tools/call, ${r.conns} conns`, 1.4, perCall(r.g), perCall(r.b)));
  const at16 = calls.find((r) => r.conns === 16);
  if (at16) checks.push(ratioCheck('p99 of tools/call, 16 conns', 2, at16.g.p99, at16.b.p99));
  for (const r of rows.filter((x) => x.kind === 'open')) checks.push(ratioCheck(`p99 at ${r.rate} tools/call/s (open loop)`, 2, r.g.p99, r.b.p99));
  const at64 = rows.filter((r) => r.conns === 64);
  if (at64.length) checks.push({ what: 'errors at 64 conns', unit: '', target: 0, gateway: at64.reduce((n, r) => n + r.g.errors, 0) });
  checks.push({ what: 'gateway peak RSS', unit: 'MB', target: RSS_TARGET_MB, gateway: rss });
  return checks;
}

function round(r) {
  return { rps: Math.round(r.rps), p50Ms: +r.p50.toFixed(3), p99Ms: +r.p99.toFixed(3), errors: r.errors, ...(r.cpu !== undefined ? { cpuUsPerReq: Math.round((r.cpu / r.count) * 1e6) } : {}), ...(r.threads ? { threads: r.threads } : {}) };
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
