#!/usr/bin/env node
/* global setTimeout, performance */
// node bench/workers.mjs — gateway throughput with `--workers 2` against one worker, in the same run (issue 26 part 4,
// docs/scaling.md). Needs DATABASE_URL and REDIS_URL: workers share their state through them.
//
// Starts the LLM benchmark's upstream (bench/llm-upstream.mjs), an API process on a fresh schema and key prefix, an
// LLM proxy with a budget that never fires and a request rate limit (so every request reads and writes Redis), and
// then, one after the other, `tollgate serve --role gateway --workers W` for each W: requests/s of non-streaming chat
// completions at --conns connections (default 32) over --seconds (default 8, after 2 s of warm-up). Nothing is
// pinned: the workers, the upstream and this load generator share the machine's cores, as they would on one pod.
// Prints one line per W and the ratio of the last to the first.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Pool } from 'undici';
import { api, args, issueBenchPat, ncpu, opt, root, start, tollgateBin } from './common.mjs';

const SECONDS = Number(opt('seconds', '8'));
const CONNS = Number(opt('conns', '32'));
const WORKERS = opt('workers', '1,2').split(',').map(Number);
if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
  console.error('bench/workers.mjs: set DATABASE_URL and REDIS_URL (gateway workers share their state through them)');
  process.exit(2);
}
const ALL = `0-${ncpu - 1}`;
const SCHEMA = `bench_${randomBytes(4).toString('hex')}`;
const body = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 64, messages: [{ role: 'user', content: 'What is the capital of France?' }] });

/** Requests per second at `conns` connections over `seconds`, after `warmup` seconds of the same load. */
async function throughput(origin, path, headers, seconds, warmup) {
  const pool = new Pool(origin, { connections: CONNS, pipelining: 1 });
  let ok = 0;
  let errors = 0;
  let counting = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const r = await pool.request({ path, method: 'POST', headers, body });
      await r.body.text();
      if (!counting) continue;
      if (r.statusCode === 200) ok++;
      else errors++;
    }
  };
  const loops = Array.from({ length: CONNS }, loop);
  await new Promise((r) => setTimeout(r, warmup * 1000));
  counting = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const elapsed = (performance.now() - t0) / 1000;
  counting = false;
  stop = true;
  await Promise.all(loops);
  await pool.close();
  return { rps: ok / elapsed, errors };
}

async function main() {
  const children = [];
  const env = {
    TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0',
    TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_LOG_LEVEL: 'info',
    TOLLGATE_CONFIG_POLL_MS: '500', TOLLGATE_DB_SCHEMA: SCHEMA, TOLLGATE_REDIS_PREFIX: `${SCHEMA}:`,
    TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64'),
  };
  // start() passes REDIS_URL on only with --redis (bench/common.mjs); the workers need it.
  if (!args.includes('--redis')) args.push('--redis');
  try {
    const upstream = await start('upstream', ALL, [join(root, 'bench/llm-upstream.mjs')], {}, { url: /UPSTREAM (\S+)/ });
    children.push(upstream.child);
    Object.assign(env, { TOLLGATE_PROVIDER_BASE_URL_OPENAI: upstream.url });
    const pat = issueBenchPat(env);
    const apiProc = await start('api', ALL, [tollgateBin, 'serve', '--role', 'api'], env, { api: /"msg":"management API listening".*?"url":"([^"]+)"/ }, { timeoutMs: 90_000 });
    children.push(apiProc.child);
    const proxy = await api(apiProc.api, pat, 'POST', '/api/llm', { name: 'bench', provider: 'openai', providerKey: 'sk-bench-provider-key', budget: { period: 'monthly', capUsd: 1_000_000, hardBlock: true } });
    await api(apiProc.api, pat, 'PUT', `/api/llm/${proxy.id}/rules`, { rules: [{ rule_type: 'rate_limit', tools: ['*'], name: 'generous', match_key: 'api_key', threshold: 1_000_000_000, timespan: 60 }] });
    const { key } = await api(apiProc.api, pat, 'POST', '/api/keys', { name: 'bench', llmPermissions: [{ id: proxy.id, models: ['*'] }] });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key.key}` };
    const results = [];
    for (const w of WORKERS) {
      const gw = await start(`gateway x${w}`, ALL, [tollgateBin, 'serve', '--role', 'gateway', '--workers', String(w)], env, { url: /"msg":"gateway listening".*?"url":"([^"]+)"/ }, { timeoutMs: 90_000 });
      const r = await throughput(new URL(gw.url).origin, `/${proxy.id}/v1/chat/completions`, headers, SECONDS, 2);
      const exited = new Promise((res) => gw.child.once('exit', res));
      gw.child.kill('SIGTERM');
      await exited;
      results.push({ w, ...r });
      console.log(`workers ${w}: ${r.rps.toFixed(0)} requests/s at ${CONNS} connections (${r.errors} errors)`);
    }
    const first = results[0];
    const last = results[results.length - 1];
    console.log(`throughput ratio, ${last.w} workers to ${first.w}: ${(last.rps / first.rps).toFixed(2)}x (same run, ${SECONDS} s each)`);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    spawnSync('psql', [process.env.DATABASE_URL, '-c', `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`], { stdio: 'ignore' });
  }
}

await main();
