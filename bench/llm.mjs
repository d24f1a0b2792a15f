#!/usr/bin/env node
/* global setTimeout */
// npm run bench:llm — the LLM gateway benchmark (issue 4 item 6).
//
// Starts a loopback upstream speaking the OpenAI wire format (bench/llm-upstream.mjs) and a Tollgate (`tollgate
// serve`; with DATABASE_URL the API and the gateway run as separate processes on PostgreSQL, else one embedded
// process) with the provider base pointed at it. Configures an openai LLM proxy through the management API with a
// provider key, a monthly hard budget that never fires, an ip_acl allow list and a request rate limit, and a client
// key. Then drives chat completions directly and through the gateway:
//   - non-streaming at 1, 16 and 64 connections: requests/s, p50, p99, the ratio, gateway CPU µs per request;
//   - streaming at 1 and 64 connections: time to first chunk (p50/p99), the mean gap between chunks, errors.
//   - an open loop: completions at one fixed rate, half the gateway's throughput at 16 connections, timed from when
//     each was due, through the gateway and the bare proxy (the tail a request meets below saturation).
// Every gateway request is authenticated, checked against the rules and the budget, and accounted (usage row,
// budget charge, audit event). CPU per request is the gateway process's utime+stime from /proc over the measured
// window divided by the requests; peak RSS is its VmHWM. With `taskset`, the gateway is pinned to core 0 and the
// upstream and this load generator to the others.
// Options: --seconds N (default 5), --warmup-seconds N (default 4), --conns 1,16,64, --stream-conns 1,64, --chunks N,
// --gap-ms N, --rate-fraction F (default 0.5; 0 skips the open loop), --rate N (completions/s instead), --plain (no
// rules, no budget), --redis (use REDIS_URL for state), --embedded (PGlite even when DATABASE_URL is set).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { tollgateBin, startEnv, startNodeArgs, extraGatewayNodeArgs, api, args, cpuSeconds, threadSampler, driveAtRate, openLoopRate, printOpenLoopRow, quantile, issueBenchPat, printTargets, ratioCheck, RSS_TARGET_MB, hasTaskset, moveLoadGeneratorOffCore0, ncpu, opt, otherCores, peakRssMb, root, start } from './common.mjs';

const startProc = (name, cores, argv, env, patterns) => start(name, cores, argv, env, patterns, { timeoutMs: 90_000 });

const SECONDS = Number(opt('seconds', '5'));
const CONNS = opt('conns', '1,16,64').split(',').filter(Boolean).map(Number);
const STREAM_CONNS = opt('stream-conns', '1,64').split(',').filter(Boolean).map(Number);
const CHUNKS = opt('chunks', '20');
const GAP_MS = opt('gap-ms', '1');
const WARMUP_MS = 1000;
// Before any measurement the gateway and the bare proxy get this much mixed traffic, so the first row is not a
// measurement of the JIT compiler.
const GLOBAL_WARMUP_S = Number(opt('warmup-seconds', '4'));
const PG = !!process.env.DATABASE_URL && !args.includes('--embedded');
// --plain: no rules and no budget (key auth and accounting only), to see what the policy features cost.
const PLAIN = args.includes('--plain');
const RATE_FRACTION = Number(opt('rate-fraction', '0.5'));
const SCHEMA = `bench_${randomBytes(4).toString('hex')}`;

moveLoadGeneratorOffCore0(import.meta.url);

let seq = 0;
const chatBody = (stream) => JSON.stringify({
  model: 'gpt-4o-mini', ...(stream ? { stream: true } : {}), max_tokens: 256,
  messages: [{ role: 'system', content: 'You are a concise assistant.' }, { role: 'user', content: `Question ${++seq}: what is the capital of France?` }],
});

/** Runs `conns` workers for the measured window; `one` returns a sample object or throws. */
async function drive(conns, ms, one, onWindow) {
  const samples = [];
  let errors = 0;
  let measuring = false;
  let stop = false;
  const worker = async () => {
    while (!stop) {
      try {
        const s = await one();
        if (measuring) samples.push(s);
      } catch {
        if (measuring) errors++;
      }
    }
  };
  const workers = Array.from({ length: conns }, worker);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const before = onWindow?.();
  measuring = true;
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, ms));
  measuring = false;
  const elapsed = (Date.now() - t0) / 1000;
  const after = onWindow?.();
  stop = true;
  await Promise.all(workers);
  const cpu = before !== undefined ? { user: after.user - before.user, sys: after.sys - before.sys } : undefined;
  return { samples, errors, elapsed, cpu };
}

/** One completion whose latency counts from `fromNs` (when it was sent, or when an open loop had it due). */
function completionFrom(pool, path, headers) {
  return async (fromNs) => {
    const r = await pool.request({ path, method: 'POST', headers, body: chatBody(false) });
    const text = await r.body.text();
    if (r.statusCode !== 200 || !text.includes('chat.completion')) throw new Error(`status ${r.statusCode}`);
    return Number(process.hrtime.bigint() - fromNs) / 1e6;
  };
}

function completionOnce(pool, path, headers) {
  const once = completionFrom(pool, path, headers);
  return () => once(process.hrtime.bigint());
}

function streamOnce(pool, path, headers) {
  return async () => {
    const t0 = process.hrtime.bigint();
    const r = await pool.request({ path, method: 'POST', headers, body: chatBody(true) });
    if (r.statusCode !== 200) {
      await r.body.text();
      throw new Error(`status ${r.statusCode}`);
    }
    let first;
    let last;
    let text = '';
    const gaps = [];
    for await (const c of r.body) {
      const t = Number(process.hrtime.bigint() - t0) / 1e6;
      if (first === undefined) first = t;
      else gaps.push(t - last);
      last = t;
      text += c.toString();
    }
    if (!text.includes('[DONE]')) throw new Error('stream cut');
    return { ttfc: first, meanGap: gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : 0, total: last };
  };
}

/** CPU µs per request: total, and the user/kernel split (kernel time is mostly socket syscalls and wake-ups). */
function perUnit(cpu, n) {
  if (!cpu || !n) return {};
  return { cpuUs: ((cpu.user + cpu.sys) / n) * 1e6, userUs: (cpu.user / n) * 1e6, sysUs: (cpu.sys / n) * 1e6 };
}

function summarizeLatency(res) {
  const lat = [...res.samples].sort((a, b) => a - b);
  return { rps: lat.length / res.elapsed, p50: quantile(lat, 0.5), p99: quantile(lat, 0.99), count: lat.length, errors: res.errors, ...perUnit(res.cpu, lat.length) };
}

function summarizeStream(res) {
  const ttfc = res.samples.map((s) => s.ttfc).sort((a, b) => a - b);
  const gaps = res.samples.map((s) => s.meanGap).sort((a, b) => a - b);
  return { streams: ttfc.length, rps: ttfc.length / res.elapsed, ttfcP50: quantile(ttfc, 0.5), ttfcP99: quantile(ttfc, 0.99), gapP50: quantile(gaps, 0.5), errors: res.errors, ...perUnit(res.cpu, ttfc.length) };
}

async function startTollgate(common, upstreamUrl) {
  const env = { ...common, TOLLGATE_PROVIDER_BASE_URL_OPENAI: upstreamUrl };
  if (!PG) {
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-llm-'));
    const tg = await startProc('tollgate', '0', [...startNodeArgs, ...extraGatewayNodeArgs, tollgateBin, 'serve'], { ...startEnv, ...env, TOLLGATE_DATA_DIR: dataDir, TOLLGATE_MASTER_KEY: '', DATABASE_URL: '' }, {
      pat: /(svc_pat_[A-Za-z0-9_-]+)/,
      api: /"msg":"management API listening".*?"url":"([^"]+)"/,
      gateway: /"msg":"gateway listening".*?"url":"([^"]+)"/,
    });
    return { ...tg, children: [tg.child], cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  Object.assign(env, { TOLLGATE_DB_SCHEMA: SCHEMA, TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64') });
  const pat = issueBenchPat(env);
  const apiProc = await startProc('api', otherCores, [tollgateBin, 'serve', '--role', 'api'], env, { api: /"msg":"management API listening".*?"url":"([^"]+)"/ });
  const gw = await startProc('gateway', '0', [...extraGatewayNodeArgs, tollgateBin, 'serve', '--role', 'gateway'], env, { gateway: /"msg":"gateway listening".*?"url":"([^"]+)"/ });
  return {
    child: gw.child, pat, api: apiProc.api, gateway: gw.gateway, children: [apiProc.child, gw.child],
    cleanup: () => spawnSync('psql', [process.env.DATABASE_URL, '-c', `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`], { stdio: 'ignore' }),
  };
}

async function waitReachable(pool, path, headers) {
  for (let i = 0; i < 60; i++) {
    const r = await pool.request({ path, method: 'POST', headers, body: chatBody(false) });
    await r.body.text();
    if (r.statusCode === 200) return;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error('the proxy never answered 200');
}

/**
 * The gateway and the bare proxy at one fixed rate of completions, a fraction (--rate-fraction, default 0.5) of the
 * gateway's closed-loop throughput at 16 connections (or --rate N per second): p50 and p99 from when each was due.
 */
async function openLoop(rows, gateway, bare, gatewayPid, barePid) {
  const ref = rows.find((r) => r.kind === 'completion' && r.conns === 16) ?? rows.filter((r) => r.kind === 'completion').at(-1);
  const rate = openLoopRate(ref, RATE_FRACTION, 'completions');
  if (!rate) return;
  const measure = async (t, pid) => {
    const pool = new Pool(t.origin, { connections: 64 });
    const res = await driveAtRate(rate, SECONDS * 1000, WARMUP_MS, completionFrom(pool, t.path, t.headers), () => cpuSeconds(pid));
    await pool.close();
    return summarizeLatency({ ...res, elapsed: SECONDS });
  };
  const g = await measure(gateway, gatewayPid);
  const b = await measure(bare, barePid);
  rows.push({ kind: 'open', conns: 0, rate, g, b });
  printOpenLoopRow(rate, g, b);
}

async function main() {
  const upstream = await startProc('upstream', otherCores, [join(root, 'bench/llm-upstream.mjs'), '--chunks', CHUNKS, '--gap-ms', GAP_MS], {}, { url: /UPSTREAM (\S+)/ });
  const common = {
    TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0',
    TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_LOG_LEVEL: 'info', TOLLGATE_CONFIG_POLL_MS: '500',
  };
  let tg;
  try {
    tg = await startTollgate(common, upstream.url);
  } catch (e) {
    upstream.child.kill();
    throw e;
  }
  const bare = await startProc('bare proxy', '0', [join(root, 'bench/bare-proxy.mjs'), new URL(upstream.url).origin, 'stream'], {}, { url: /BARE (\S+)/ });
  const children = [upstream.child, ...tg.children, bare.child];
  const pid = tg.child.pid;
  try {
    const proxy = await api(tg.api, tg.pat, 'POST', '/api/llm', {
      name: 'bench', provider: 'openai', providerKey: 'sk-bench-provider-key',
      budget: PLAIN ? null : { period: 'monthly', capUsd: 1_000_000, hardBlock: true },
    });
    if (!PLAIN) {
      await api(tg.api, tg.pat, 'PUT', `/api/llm/${proxy.id}/rules`, { rules: [
        { rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.0/8', '::1/128'] },
        { rule_type: 'rate_limit', tools: ['*'], name: 'generous', match_key: 'api_key', threshold: 1_000_000_000, timespan: 60 },
      ] });
    }
    const { key } = await api(tg.api, tg.pat, 'POST', '/api/keys', { name: 'bench', llmPermissions: [{ id: proxy.id, models: ['*'] }] });
    const direct = { origin: new URL(upstream.url).origin, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-provider-key' } };
    const gateway = { origin: new URL(tg.gateway).origin, path: `/${proxy.id}/v1/chat/completions`, headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` } };
    {
      const p = new Pool(gateway.origin, { connections: 1 });
      await waitReachable(p, gateway.path, gateway.headers);
      await p.close();
    }

    for (const t of [gateway, { ...direct, origin: bare.url }]) {
      const p = new Pool(t.origin, { connections: 16 });
      await drive(16, GLOBAL_WARMUP_S * 500, completionOnce(p, t.path, t.headers));
      await drive(8, GLOBAL_WARMUP_S * 500, streamOnce(p, t.path, t.headers));
      await p.close();
    }
    const rows = [];
    console.log('non-streaming chat completions');
    console.log('conns | direct rps   p50 ms   p99 ms | gateway rps   p50 ms   p99 ms  errors  CPU µs/req (user+sys) | rps ratio  added p50 ms | bare proxy CPU µs/req  added p50 ms');
    for (const conns of CONNS) {
      const dp = new Pool(direct.origin, { connections: conns });
      const gp = new Pool(gateway.origin, { connections: conns });
      const bp = new Pool(bare.url, { connections: conns });
      const d = summarizeLatency(await drive(conns, SECONDS * 1000, completionOnce(dp, direct.path, direct.headers)));
      const threads = threadSampler(pid, cpuSeconds);
      const g = summarizeLatency(await drive(conns, SECONDS * 1000, completionOnce(gp, gateway.path, gateway.headers), threads.sample));
      g.threads = threads.shares();
      const b = summarizeLatency(await drive(conns, SECONDS * 1000, completionOnce(bp, direct.path, direct.headers), () => cpuSeconds(bare.child.pid)));
      await Promise.all([dp.close(), gp.close(), bp.close()]);
      rows.push({ kind: 'completion', conns, d, g, b });
      const pad = (v, n) => String(v).padStart(n);
      console.log(`${pad(conns, 5)} | ${pad(d.rps.toFixed(0), 10)} ${pad(d.p50.toFixed(3), 8)} ${pad(d.p99.toFixed(3), 8)} | ${pad(g.rps.toFixed(0), 11)} ${pad(g.p50.toFixed(3), 8)} ${pad(g.p99.toFixed(3), 8)} ${pad(g.errors + d.errors, 7)} ${pad(`${g.cpuUs.toFixed(0)} (${g.userUs.toFixed(0)}+${g.sysUs.toFixed(0)})`, 22)} | ${pad((g.rps / d.rps).toFixed(2), 9)} ${pad((g.p50 - d.p50).toFixed(3), 13)} | ${pad(`${b.cpuUs.toFixed(0)} (${b.userUs.toFixed(0)}+${b.sysUs.toFixed(0)})`, 21)} ${pad((b.p50 - d.p50).toFixed(3), 13)}`);
      console.log(`      gateway CPU by thread: ${threads.describe()}; peak RSS so far ${peakRssMb(pid).toFixed(0)} MB`);
    }
    await openLoop(rows, gateway, { ...direct, origin: bare.url }, pid, bare.child.pid);
    console.log(`\nstreaming chat completions (${CHUNKS} content chunks, ${GAP_MS} ms apart)`);
    console.log('conns | direct ttfc p50   p99   gap p50 | gateway ttfc p50   p99   gap p50  errors  CPU µs/stream (user+sys) | added ttfc p50 ms  added gap ms | bare CPU µs/stream  added ttfc p50 ms');
    for (const conns of STREAM_CONNS) {
      const dp = new Pool(direct.origin, { connections: conns });
      const gp = new Pool(gateway.origin, { connections: conns });
      const bp = new Pool(bare.url, { connections: conns });
      const d = summarizeStream(await drive(conns, SECONDS * 1000, streamOnce(dp, direct.path, direct.headers)));
      const threads = threadSampler(pid, cpuSeconds);
      const g = summarizeStream(await drive(conns, SECONDS * 1000, streamOnce(gp, gateway.path, gateway.headers), threads.sample));
      g.threads = threads.shares();
      const b = summarizeStream(await drive(conns, SECONDS * 1000, streamOnce(bp, direct.path, direct.headers), () => cpuSeconds(bare.child.pid)));
      await Promise.all([dp.close(), gp.close(), bp.close()]);
      rows.push({ kind: 'stream', conns, d, g, b });
      const pad = (v, n) => String(v).padStart(n);
      console.log(`${pad(conns, 5)} | ${pad(d.ttfcP50.toFixed(3), 16)} ${pad(d.ttfcP99.toFixed(3), 5)} ${pad(d.gapP50.toFixed(3), 9)} | ${pad(g.ttfcP50.toFixed(3), 17)} ${pad(g.ttfcP99.toFixed(3), 5)} ${pad(g.gapP50.toFixed(3), 9)} ${pad(g.errors + d.errors, 7)} ${pad(`${g.cpuUs.toFixed(0)} (${g.userUs.toFixed(0)}+${g.sysUs.toFixed(0)})`, 25)} | ${pad((g.ttfcP50 - d.ttfcP50).toFixed(3), 17)} ${pad((g.gapP50 - d.gapP50).toFixed(3), 13)} | ${pad(b.cpuUs.toFixed(0), 18)} ${pad((b.ttfcP50 - d.ttfcP50).toFixed(3), 17)}`);
      console.log(`      gateway CPU by thread: ${threads.describe()}; peak RSS so far ${peakRssMb(pid).toFixed(0)} MB`);
    }
    const rss = peakRssMb(pid);
    console.log(`\ngateway peak RSS (VmHWM): ${rss.toFixed(1)} MB`);
    if (!PLAIN) printTargets('targets (issue 26: gateway pinned to one core; key auth, ip_acl, rate limit, budget, accounting)', targetChecks(rows, rss));
    console.log(`gateway pinned to core 0: ${hasTaskset ? 'yes' : 'no (taskset not available)'}; cores: ${ncpu}; datastores: ${PG ? 'PostgreSQL (API and gateway in separate processes)' : 'embedded PGlite (API, database and gateway in one process)'} + ${args.includes('--redis') && process.env.REDIS_URL ? 'Redis' : 'in-process state'}`);
    console.log(PLAIN
      ? 'gateway path (--plain): client key auth, usage accounting, audit event per request; no rules, no budget'
      : 'gateway path: client key auth, ip_acl allow list, rate_limit (api_key), monthly hard budget (reserve + settle), usage accounting, audit event per request');
    console.log('bare proxy = node:http + undici streaming passthrough with no auth, rules, accounting or events (bench/bare-proxy.mjs stream), pinned to the same core: the floor of any Node proxy here.');
    console.log(JSON.stringify({ rows: rows.map((r) => ({ kind: r.kind, conns: r.conns, direct: r.d, gateway: r.g, bareProxy: r.b })), peakRssMb: Math.round(rss) }, (_k, v) => (typeof v === 'number' ? +v.toFixed(3) : v)));
  } finally {
    for (const c of children) c.kill('SIGTERM');
    tg.cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

function targetChecks(rows, rss) {
  const checks = [];
  for (const r of rows.filter((x) => x.kind === 'completion' && x.conns > 1)) {
    checks.push(ratioCheck(`CPU per completion, ${r.conns} conns`, 1.5, r.g.cpuUs, r.b.cpuUs));
    if (r.conns === 16) checks.push(ratioCheck('p99 of a completion, 16 conns', 2, r.g.p99, r.b.p99));
  }
  for (const r of rows.filter((x) => x.kind === 'open')) checks.push(ratioCheck(`p99 at ${r.rate} completions/s (open loop)`, 2, r.g.p99, r.b.p99));
  for (const r of rows.filter((x) => x.kind === 'stream')) {
    checks.push(ratioCheck(`CPU per stream, ${r.conns} streams`, 1.2, r.g.cpuUs, r.b.cpuUs));
    if (r.conns === 64) checks.push({ what: 'errors with 64 concurrent streams', unit: '', target: 0, gateway: r.g.errors });
  }
  checks.push({ what: 'gateway peak RSS', unit: 'MB', target: RSS_TARGET_MB, gateway: rss });
  return checks;
}
