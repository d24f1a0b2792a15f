#!/usr/bin/env node
// npm run bench:llm:instructions — instructions per LLM chat completion (non-streaming), counted by valgrind's
// callgrind, for the gateway with bench:llm's policies (key auth, ip_acl, rate_limit on api_key, monthly hard budget,
// accounting, audit event) and for the bare proxy (bench/bare-proxy.mjs stream), and their ratio. Same method as
// bench:mcp:instructions: instrumentation off during start-up and --warmup requests, then exactly --requests requests
// at --conns connections are counted.
//
// --phases: instead of callgrind, the gateway runs under `node --cpu-prof` and the profile of the measured requests is
// grouped into phases by source file (bench/phases.mjs); --instructions N applies the shares to N instructions per
// request (the figure of a callgrind run); --top N lists the N functions with the most self time. Topology:
// PostgreSQL (+ Redis with --redis) with DATABASE_URL, else embedded (--embedded forces it).
//
// --stream: the same requests with `stream: true`, answered in --chunks N SSE content chunks (default 20, as
// bench:llm's streams): the instructions per stream, whose share per chunk the chunk count moves.
/* global setTimeout */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { callgrindIn, formatCount as fmt, THREADS_LEGEND } from './callgrind.mjs';
import { api, args, issueBenchPat, moveLoadGeneratorOffCore0, opt, otherCores, root, start, startEnv, startNodeArgs, tollgateBin } from './common.mjs';
import { cpuProfArgs, profilePhases } from './phases.mjs';

const WARMUP = Number(opt('warmup', '3000'));
const REQUESTS = Number(opt('requests', '2000'));
const CONNS = Number(opt('conns', '16'));
const PG = !!process.env.DATABASE_URL && !args.includes('--embedded');
const PHASES = args.includes('--phases');
const STREAM = args.includes('--stream');
const CHUNKS = opt('chunks', '20');

moveLoadGeneratorOffCore0(import.meta.url);

const outDir = mkdtempSync(join(tmpdir(), 'tollgate-llm-instr-'));
const { wrap: callgrind, control, perRequest } = callgrindIn(outDir);

let seq = 0;
const chatBody = () => JSON.stringify({ model: 'gpt-4o-mini', ...(STREAM ? { stream: true } : {}), max_tokens: 256, messages: [{ role: 'system', content: 'You are a concise assistant.' }, { role: 'user', content: `Question ${++seq}: what is the capital of France?` }] });

async function send(pool, path, headers, n) {
  let left = n;
  let errors = 0;
  const worker = async () => {
    while (left > 0) {
      left--;
      const r = await pool.request({ path, method: 'POST', headers, body: chatBody() });
      const text = await r.body.text();
      // A stream's last event is [DONE]; an answer that broke off lacks it.
      if (r.statusCode !== 200 || !text.includes(STREAM ? '[DONE]' : 'chat.completion')) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONNS }, worker));
  return errors;
}

/** Starts Tollgate; the gateway process runs under `wrap` (callgrind) and with `nodeArgs`. */
async function startTollgate(upstreamUrl, wrap, nodeArgs = []) {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  const env = {
    TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0', TOLLGATE_LOG_LEVEL: 'info',
    TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_CONFIG_POLL_MS: '500', TOLLGATE_PROVIDER_BASE_URL_OPENAI: upstreamUrl,
  };
  const listening = (what) => new RegExp(`"msg":"${what} listening".*?"url":"([^"]+)"`);
  const spawnedAt = Date.now();
  if (!PG) {
    const tg = await start('tollgate', '0', [...startNodeArgs, ...nodeArgs, tollgateBin, 'serve'], { ...startEnv, ...env, TOLLGATE_DATA_DIR: dataDir, TOLLGATE_MASTER_KEY: '', DATABASE_URL: '' }, { pat: /(svc_pat_[A-Za-z0-9_-]+)/, api: listening('management API'), gateway: listening('gateway') }, { wrap, timeoutMs: 600_000 });
    return { ...tg, spawnedAt, children: [tg.child], cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  Object.assign(env, { TOLLGATE_DB_SCHEMA: schema, TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64') });
  const pat = issueBenchPat(env);
  const apiProc = await start('api', otherCores, [tollgateBin, 'serve', '--role', 'api'], env, { api: listening('management API') }, { timeoutMs: 90_000 });
  const at = Date.now();
  const gw = await start('gateway', '0', [...nodeArgs, tollgateBin, 'serve', '--role', 'gateway'], env, { gateway: listening('gateway') }, { wrap, timeoutMs: 600_000 });
  return {
    child: gw.child, pat, api: apiProc.api, gateway: gw.gateway, spawnedAt: at, children: [apiProc.child, gw.child],
    cleanup: () => spawnSync('psql', [process.env.DATABASE_URL, '-c', `DROP SCHEMA IF EXISTS ${schema} CASCADE`], { stdio: 'ignore' }),
  };
}

async function configure(tg) {
  const proxy = await api(tg.api, tg.pat, 'POST', '/api/llm', { name: 'bench', provider: 'openai', providerKey: 'sk-bench-provider-key', budget: { period: 'monthly', capUsd: 1_000_000, hardBlock: true } });
  await api(tg.api, tg.pat, 'PUT', `/api/llm/${proxy.id}/rules`, { rules: [
    { rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.0/8', '::1/128'] },
    { rule_type: 'rate_limit', tools: ['*'], name: 'generous', match_key: 'api_key', threshold: 1_000_000_000, timespan: 60 },
  ] });
  const { key } = await api(tg.api, tg.pat, 'POST', '/api/keys', { name: 'bench', llmPermissions: [{ id: proxy.id, models: ['*'] }] });
  const pool = new Pool(new URL(tg.gateway).origin, { connections: CONNS });
  const target = { pool, path: `/${proxy.id}/v1/chat/completions`, headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` } };
  for (let i = 0; i < 120; i++) {
    if (!(await send(pool, target.path, target.headers, 1))) return target;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the proxy never answered 200');
}

/** Counts instructions of `n` requests to `target` in the callgrind process `pid` (name: its output file prefix). */
async function count(name, pid, t) {
  process.stdout.write(`${name}: warm-up ${WARMUP}... `);
  await send(t.pool, t.path, t.headers, WARMUP);
  control(pid, '--instr=on');
  await send(t.pool, t.path, t.headers, 50);
  control(pid, '--zero');
  process.stdout.write(`counting ${REQUESTS}... `);
  const errors = await send(t.pool, t.path, t.headers, REQUESTS);
  control(pid, '--dump=completion');
  control(pid, '--instr=off');
  return perRequest(name, pid, REQUESTS, errors);
}

async function instructions(upstream) {
  const tg = await startTollgate(upstream.url, callgrind('gateway'));
  const bare = await start('bare proxy', '0', [join(root, 'bench/bare-proxy.mjs'), new URL(upstream.url).origin, 'stream'], {}, { url: /BARE (\S+)/ }, { wrap: callgrind('bare'), timeoutMs: 600_000 });
  try {
    const g = await count('gateway', tg.child.pid, await configure(tg));
    const bp = new Pool(bare.url, { connections: CONNS });
    const b = await count('bare', bare.child.pid, { pool: bp, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-provider-key' } });
    console.log(`\n${STREAM ? `stream (${CHUNKS} chunks)` : 'completion'}  conns ${CONNS} | gateway ${fmt(g.total)} instr/req | bare proxy ${fmt(b.total)} | ratio ${(g.total / b.total).toFixed(2)}`
      + ` | main thread: gateway ${fmt(g.main)} | bare proxy ${fmt(b.main)} | ratio ${(g.main / b.main).toFixed(2)}`);
    console.log(THREADS_LEGEND);
    console.log(JSON.stringify({
      kind: STREAM ? 'stream' : 'completion', ...(STREAM ? { chunks: Number(CHUNKS) } : {}), conns: CONNS, requests: REQUESTS, gateway: Math.round(g.total), bare: Math.round(b.total), ratio: +(g.total / b.total).toFixed(2),
      gatewayMain: Math.round(g.main), bareMain: Math.round(b.main), mainRatio: +(g.main / b.main).toFixed(2),
    }));
  } finally {
    for (const c of [...tg.children, bare.child]) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    tg.cleanup();
  }
}

async function phases(upstream) {
  const tg = await startTollgate(upstream.url, undefined, cpuProfArgs(outDir));
  try {
    const t = await configure(tg);
    await send(t.pool, t.path, t.headers, WARMUP);
    await profilePhases(tg, () => send(t.pool, t.path, t.headers, REQUESTS), {
      dir: outDir, instructionsPerRequest: Number(opt('instructions', '0')) || undefined, top: Number(opt('top', '0')),
      title: `phases of ${REQUESTS} chat completions${STREAM ? ` streamed in ${CHUNKS} chunks` : ''} at ${CONNS} connections (${PG ? 'PostgreSQL' : 'embedded'}${args.includes('--redis') ? ' + Redis' : ''})`,
    });
  } finally {
    for (const c of tg.children) c.kill('SIGTERM');
    tg.cleanup();
  }
}

async function main() {
  if (!PHASES && spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed (Debian package valgrind)');
  const upstream = await start('upstream', otherCores, [join(root, 'bench/llm-upstream.mjs'), '--chunks', CHUNKS], {}, { url: /UPSTREAM (\S+)/ });
  try {
    await (PHASES ? phases(upstream) : instructions(upstream));
  } finally {
    upstream.child.kill('SIGTERM');
    if (args.includes('--keep')) console.log(`files kept in ${outDir}`);
    else rmSync(outDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
