#!/usr/bin/env node
/* global setTimeout, setInterval, clearInterval */
// npm run soak — a steady load through both proxy kinds with every rule type on, then concurrent long SSE streams.
//
// Starts a real MCP upstream (official SDK), two loopback LLM upstreams in the OpenAI wire format (one answering at
// once, one streaming slowly), and a Tollgate (`tollgate serve`; with DATABASE_URL the API and the gateway are
// separate processes on PostgreSQL, else one embedded process). Configures an MCP proxy and an LLM proxy whose rules
// together use every rule type, and a client key. Then:
//   1. soak: --rate requests/s (open loop: sent on a fixed schedule whether or not earlier ones have answered), half
//      MCP tools/call, half LLM chat completions, for --minutes; every --interval-s it prints throughput, p50/p99,
//      errors, the gateway's RSS and open file descriptors. At the end it checks that throughput and RSS stayed flat
//      (every interval after the first within 10 % of their median) and that open descriptors did not grow.
//   2. streams: --streams concurrent streaming completions of --stream-seconds each (a chunk every 250 ms); a stream
//      stalls when two chunks are more than 2 s apart. Every stream must finish with [DONE] and none may stall.
// Exits 1 when a check fails. Full length: npm run soak (10 minutes at 100 requests/s, 64 streams of 60 s);
// test/soak.test.ts runs a short one in CI with --smoke: a minute says nothing about flatness (RSS and the pools are
// still warming up) and CI runs other test files beside it on a shared machine, so a smoke run judges only what must
// hold anywhere (no errors; every stream complete, none silent for --stall-ms) and prints the rest.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { tsImport } from 'tsx/esm/api';
import { tollgateBin, startEnv, startNodeArgs, api, args, issueBenchPat, opt, quantile, root, start } from './common.mjs';
import { ACCEPT, openSession } from './mcp-setup.mjs';

const MINUTES = Number(opt('minutes', '10'));
const INTERVAL_S = Number(opt('interval-s', '60'));
const RATE = Number(opt('rate', '100'));
const STREAMS = Number(opt('streams', '64'));
const STREAM_SECONDS = Number(opt('stream-seconds', '60'));
const STREAM_GAP_MS = 250;
const STALL_MS = Number(opt('stall-ms', '2000'));
const SMOKE = args.includes('--smoke');
const MAX_IN_FLIGHT = 512;
const PG = !!process.env.DATABASE_URL && !args.includes('--embedded');
const SCHEMA = `soak_${randomBytes(4).toString('hex')}`;

const proc = (name, argv, env, patterns) => start(name, '0-1', argv, env, patterns, { timeoutMs: 90_000 });
const median = (xs) => quantile([...xs].sort((a, b) => a - b), 0.5);

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
const openFds = (pid) => readdirSync(`/proc/${pid}/fd`).length;

// One rule of every type, per proxy kind, from the contract's table (contract/src/rules/examples.ts, shared with the
// rule reference and the fuzzer). It is TypeScript: tsx loads it whether or not `npm run build` ran, like the sources
// `tollgate` falls back to. The soak's traffic must never be blocked: its prompts name no injection, it sends no
// `x-block` header, prompt_guard only alerts, and the cache covers the one tool it calls.
const { examplesFor } = await tsImport('../contract/src/rules/examples.ts', import.meta.url);
const MCP_RULES = examplesFor('mcp', { prompt_guard: { action: 'alert' }, static_cache: { tools: ['echo'] } });
const LLM_RULES = examplesFor('llm', { prompt_guard: { action: 'alert' } });

async function startTollgate(common) {
  if (!PG) {
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-soak-'));
    const tg = await proc('tollgate', [...startNodeArgs, tollgateBin, 'serve'], { ...startEnv, ...common, TOLLGATE_DATA_DIR: dataDir, TOLLGATE_MASTER_KEY: '', DATABASE_URL: '' }, {
      pat: /(svc_pat_[A-Za-z0-9_-]+)/, api: /"msg":"management API listening".*?"url":"([^"]+)"/, gateway: /"msg":"gateway listening".*?"url":"([^"]+)"/,
    });
    return { ...tg, pid: tg.child.pid, children: [tg.child], cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const env = { ...common, TOLLGATE_DB_SCHEMA: SCHEMA, TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64') };
  const pat = issueBenchPat(env);
  const apiProc = await proc('api', [tollgateBin, 'serve', '--role', 'api'], env, { api: /"msg":"management API listening".*?"url":"([^"]+)"/ });
  const gw = await proc('gateway', [tollgateBin, 'serve', '--role', 'gateway'], env, { gateway: /"msg":"gateway listening".*?"url":"([^"]+)"/ });
  return {
    pat, api: apiProc.api, gateway: gw.gateway, pid: gw.child.pid, children: [apiProc.child, gw.child],
    cleanup: () => spawnSync('psql', [process.env.DATABASE_URL, '-c', `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`], { stdio: 'ignore' }),
  };
}

async function configure(tg, mcpUrl) {
  const { server } = await api(tg.api, tg.pat, 'POST', '/api/mcp', { name: 'soak', url: mcpUrl });
  await api(tg.api, tg.pat, 'POST', `/api/mcp/${server.id}/tools`);
  await api(tg.api, tg.pat, 'PUT', `/api/mcp/${server.id}/rules`, { rules: MCP_RULES });
  const llm = await api(tg.api, tg.pat, 'POST', '/api/llm', { name: 'soak', provider: 'openai', providerKey: 'sk-soak', budget: { period: 'monthly', capUsd: 1_000_000, hardBlock: true } });
  await api(tg.api, tg.pat, 'PUT', `/api/llm/${llm.id}/rules`, { rules: LLM_RULES });
  const streams = await api(tg.api, tg.pat, 'POST', '/api/llm', { name: 'soak-streams', provider: 'mistral', providerKey: 'sk-soak' });
  const { key } = await api(tg.api, tg.pat, 'POST', '/api/keys', {
    name: 'soak', mcpPermissions: [{ id: server.id, tools: ['*'] }], llmPermissions: [{ id: llm.id, models: ['*'] }, { id: streams.id, models: ['*'] }],
  });
  return { mcpPath: `/${server.id}/`, llmPath: `/${llm.id}/v1/chat/completions`, streamPath: `/${streams.id}/v1/chat/completions`, auth: { authorization: `Bearer ${key.key}` } };
}

let seq = 0;
const chat = (stream) => JSON.stringify({ model: 'gpt-4o-mini', ...(stream ? { stream: true } : {}), messages: [{ role: 'user', content: `Question ${++seq} from soak@example.com: the capital of France?` }] });
const toolCall = () => `{"jsonrpc":"2.0","id":${++seq},"method":"tools/call","params":{"name":"echo","arguments":{"text":"order ${seq} card 4111-1111-1111-1111"}}}`;

async function soak(pool, cfg, pid) {
  const session = await openSession(pool, cfg.mcpPath, cfg.auth);
  const llmHeaders = { 'content-type': 'application/json', ...cfg.auth };
  let window = { ok: 0, errors: 0, latencies: [] };
  let inFlight = 0;
  let n = 0;
  const one = async () => {
    const mcp = n++ % 2 === 0;
    if (inFlight >= MAX_IN_FLIGHT) { window.errors++; return; }
    inFlight++;
    const w = window;
    const t0 = process.hrtime.bigint();
    try {
      const r = mcp
        ? await pool.request({ path: cfg.mcpPath, method: 'POST', headers: { ...session, accept: ACCEPT }, body: toolCall() })
        : await pool.request({ path: cfg.llmPath, method: 'POST', headers: llmHeaders, body: chat(false) });
      const text = await r.body.text();
      const good = r.statusCode === 200 && (mcp ? text.includes('[card 1111]') : text.includes('chat.completion'));
      if (good) { w.ok++; w.latencies.push(Number(process.hrtime.bigint() - t0) / 1e6); } else w.errors++;
    } catch {
      w.errors++;
    } finally {
      inFlight--;
    }
  };
  const rows = [];
  const intervals = Math.max(1, Math.round((MINUTES * 60) / INTERVAL_S));
  console.log(`soak: ${RATE} requests/s (half MCP tools/call, half LLM completions) for ${MINUTES} min, every rule type on`);
  console.log('interval  elapsed s   ok/s   p50 ms   p99 ms  errors  RSS MB  fds');
  const started = Date.now();
  const tick = setInterval(() => { void one(); }, 1000 / RATE);
  try {
    for (let i = 1; i <= intervals; i++) {
      await new Promise((r) => setTimeout(r, INTERVAL_S * 1000));
      const w = window;
      window = { ok: 0, errors: 0, latencies: [] };
      const lat = w.latencies.sort((a, b) => a - b);
      const row = { i, okPerS: w.ok / INTERVAL_S, p50: quantile(lat, 0.5), p99: quantile(lat, 0.99), errors: w.errors, rss: rssMb(pid), fds: openFds(pid) };
      rows.push(row);
      console.log(`${String(i).padStart(8)}  ${String(Math.round((Date.now() - started) / 1000)).padStart(9)}  ${row.okPerS.toFixed(1).padStart(5)}  ${row.p50.toFixed(2).padStart(7)}  ${row.p99.toFixed(2).padStart(7)}  ${String(row.errors).padStart(6)}  ${row.rss.toFixed(0).padStart(6)}  ${String(row.fds).padStart(3)}`);
    }
  } finally {
    clearInterval(tick);
  }
  return rows;
}

/** Every interval after the first (warm-up) within 10 % of the median of those intervals. */
function flat(rows, field) {
  const xs = rows.slice(rows.length > 1 ? 1 : 0).map((r) => r[field]);
  const m = median(xs);
  const worst = Math.max(...xs.map((x) => Math.abs(x - m)));
  return { ok: worst <= 0.1 * m, median: m, worst, how: `largest deviation ${worst.toFixed(1)}` };
}

/**
 * Open descriptors move with the pools (keep-alive sockets to the upstreams, PostgreSQL and Redis open and close),
 * a few dozen up and down; a leak is growth. So: the median of the later half of the intervals (after the warm-up)
 * at most 10 % (or one descriptor) above the median of the earlier half.
 */
function noGrowth(rows, field) {
  const xs = rows.slice(rows.length > 1 ? 1 : 0).map((r) => r[field]);
  const half = Math.floor(xs.length / 2);
  const early = median(xs.slice(0, Math.max(1, half)));
  const late = median(xs.slice(half));
  return { ok: late <= Math.max(early * 1.1, early + 1), median: median(xs), worst: late - early, how: `range ${Math.min(...xs)}–${Math.max(...xs)}, earlier half median ${early}, later half ${late}` };
}

async function streams(origin, cfg) {
  const headers = { 'content-type': 'application/json', ...cfg.auth };
  const pool = new Pool(origin, { connections: STREAMS });
  const one = async () => {
    const r = await pool.request({ path: cfg.streamPath, method: 'POST', headers, body: chat(true), bodyTimeout: 0, headersTimeout: 30_000 });
    if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}: ${await r.body.text()}`);
    let last = Date.now();
    let maxGap = 0;
    let text = '';
    for await (const c of r.body) {
      const now = Date.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      text += c.toString();
    }
    if (!text.includes('[DONE]')) throw new Error('the stream was cut');
    return maxGap;
  };
  console.log(`\nstreams: ${STREAMS} concurrent streaming completions of ${STREAM_SECONDS} s (a chunk every ${STREAM_GAP_MS} ms)`);
  const t0 = Date.now();
  const results = await Promise.allSettled(Array.from({ length: STREAMS }, one));
  await pool.close();
  const gaps = results.filter((r) => r.status === 'fulfilled').map((r) => r.value).sort((a, b) => a - b);
  const failed = results.filter((r) => r.status === 'rejected');
  const stalled = gaps.filter((g) => g > STALL_MS).length;
  console.log(`completed ${gaps.length}/${STREAMS} in ${((Date.now() - t0) / 1000).toFixed(1)} s; largest gap between chunks: median ${median(gaps)} ms, max ${gaps.at(-1)} ms; stalled (> ${STALL_MS} ms): ${stalled}; failed: ${failed.length}${failed.length ? ` (${failed[0].reason.message})` : ''}`);
  return failed.length === 0 && stalled === 0;
}

async function main() {
  const children = [];
  let tg;
  try {
    const mcpUp = await proc('mcp upstream', [join(root, 'bench/mcp-upstream.mjs'), 'json'], {}, { url: /UPSTREAM (\S+)/ });
    children.push(mcpUp.child);
    const llmUp = await proc('llm upstream', [join(root, 'bench/llm-upstream.mjs'), '--chunks', '5', '--gap-ms', '0'], {}, { url: /UPSTREAM (\S+)/ });
    children.push(llmUp.child);
    const slowUp = await proc('streaming upstream', [join(root, 'bench/llm-upstream.mjs'), '--chunks', String(Math.round((STREAM_SECONDS * 1000) / STREAM_GAP_MS)), '--gap-ms', String(STREAM_GAP_MS)], {}, { url: /UPSTREAM (\S+)/ });
    children.push(slowUp.child);
    tg = await startTollgate({
      TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0', TOLLGATE_CONFIG_POLL_MS: '500',
      TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_LOG_LEVEL: 'info',
      TOLLGATE_PROVIDER_BASE_URL_OPENAI: llmUp.url, TOLLGATE_PROVIDER_BASE_URL_MISTRAL: slowUp.url,
    });
    children.push(...tg.children);
    const cfg = await configure(tg, mcpUp.url);
    const origin = new URL(tg.gateway).origin;
    const pool = new Pool(origin, { connections: 64 });
    const rows = await soak(pool, cfg, tg.pid);
    await pool.close();
    const checks = [['throughput', flat(rows, 'okPerS')], ['RSS', flat(rows, 'rss')], ['open fds', noGrowth(rows, 'fds')]];
    const errors = rows.reduce((a, r) => a + r.errors, 0);
    for (const [what, c] of checks) console.log(`${what}: median ${c.median.toFixed(1)}, ${c.how} — ${c.ok ? 'flat' : 'NOT flat'}${SMOKE ? ' (not judged in a smoke run)' : ''}`);
    console.log(`errors: ${errors}`);
    const streamsOk = STREAMS > 0 ? await streams(origin, cfg) : true;
    const ok = (SMOKE || checks.every(([, c]) => c.ok)) && errors === 0 && streamsOk;
    console.log(ok ? '\nsoak: PASS' : '\nsoak: FAIL');
    return ok ? 0 : 1;
  } finally {
    for (const c of children) c.kill('SIGTERM');
    tg?.cleanup();
  }
}

process.exitCode = await main();
