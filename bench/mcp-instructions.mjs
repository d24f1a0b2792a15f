#!/usr/bin/env node
// npm run bench:mcp:instructions — instructions per MCP request, counted by valgrind's callgrind: a figure that does
// not move with the load of a shared machine, for comparing two builds of the gateway (the CPU-time figures of
// bench:mcp vary by ±30 % between identical runs on a busy host).
//
// The gateway and the bare proxy (bench/bare-proxy.mjs) each run under callgrind with instrumentation off; after a
// warm-up of --warmup requests (V8 has optimised the hot path by then) instrumentation is switched on, the counters are
// zeroed, exactly --requests requests are sent at --conns connections, and the counters are dumped. Prints
// instructions per request for both and their ratio. Same setup and rule set as bench:mcp (--rules, --no-rules,
// --sse, --kinds, --keep (keep the callgrind files), PostgreSQL with DATABASE_URL unless --embedded; with PGlite the database's work is counted too).
// Work on timers (the audit flush every 250 ms, the config version poll) weighs more than it does at full speed,
// because the process runs about 50 times slower under callgrind.
// --phases: instead of callgrind, the gateway runs under `node --cpu-prof` and the profile of the measured requests is
// grouped into phases by source file (bench/phases.mjs); --instructions N applies the shares to N instructions per
// request (this script's own figure for the same setup); --top N lists the N functions with the most self time.
/* global setTimeout */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { callgrindIn, formatCount as fmt, THREADS_LEGEND } from './callgrind.mjs';
import { args, moveLoadGeneratorOffCore0, opt } from './common.mjs';
import { openSession, requestBody, startMcpBench } from './mcp-setup.mjs';
import { cpuProfArgs, profilePhases } from './phases.mjs';

const WARMUP = Number(opt('warmup', '3000'));
const REQUESTS = Number(opt('requests', '2000'));
const CONNS = Number(opt('conns', '16'));
const KINDS = opt('kinds', 'tools/call').split(',');
const PG = !!process.env.DATABASE_URL && !args.includes('--embedded');
const PHASES = args.includes('--phases');

moveLoadGeneratorOffCore0(import.meta.url);

if (!PHASES && spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('valgrind is not installed (Debian package valgrind)');
  process.exit(2);
}

const outDir = mkdtempSync(join(tmpdir(), 'tollgate-callgrind-'));
const { wrap: callgrind, control, perRequest } = callgrindIn(outDir);

/** Sends exactly n requests over conns connections; returns the number of failed ones. */
async function send(pool, path, headers, kind, conns, n) {
  let left = n;
  let errors = 0;
  const worker = async () => {
    while (left > 0) {
      left--;
      const r = await pool.request({ path, method: 'POST', headers, body: requestBody(kind) });
      const text = await r.body.text();
      if (r.statusCode !== 200 || text.includes('"error"')) errors++;
    }
  };
  await Promise.all(Array.from({ length: conns }, worker));
  return errors;
}

async function measure(name, pid, origin, path, auth, kind) {
  const pool = new Pool(origin, { connections: CONNS });
  try {
    const h = await openSession(pool, path, auth);
    process.stdout.write(`${name}: warm-up ${WARMUP} ${kind}... `);
    await send(pool, path, h, kind, CONNS, WARMUP);
    control(pid, '--instr=on');
    await send(pool, path, h, kind, CONNS, 50); // settle after the switch (callgrind retranslates the code)
    control(pid, '--zero');
    process.stdout.write(`counting ${REQUESTS}... `);
    const errors = await send(pool, path, h, kind, CONNS, REQUESTS);
    control(pid, `--dump=${kind}`);
    control(pid, '--instr=off');
    return perRequest(name, pid, REQUESTS, errors);
  } finally {
    await pool.close();
  }
}

/** Profiles the gateway (no callgrind) over the measured requests of the first kind and prints its phases. */
async function phases() {
  const kind = KINDS[0];
  const b = await startMcpBench({ sse: args.includes('--sse'), pg: PG, gatewayNodeArgs: cpuProfArgs(outDir) });
  const pool = new Pool(new URL(b.gateway).origin, { connections: CONNS });
  try {
    const h = await openSession(pool, b.gatewayPath, b.auth);
    await send(pool, b.gatewayPath, h, kind, CONNS, WARMUP);
    await profilePhases({ child: b.gatewayChild, spawnedAt: b.gatewaySpawnedAt }, () => send(pool, b.gatewayPath, h, kind, CONNS, REQUESTS), {
      dir: outDir, instructionsPerRequest: Number(opt('instructions', '0')) || undefined, top: Number(opt('top', '0')),
      title: `phases of ${REQUESTS} MCP ${kind} at ${CONNS} connections (${PG ? 'PostgreSQL' : 'embedded'}${args.includes('--redis') ? ' + Redis' : ''}; rules: ${args.includes('--no-rules') ? 'none' : opt('rules', 'the bench:mcp set')})`,
    });
  } finally {
    await pool.close();
    b.stop();
    rmSync(outDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

async function main() {
  if (PHASES) return phases();
  const b = await startMcpBench({ sse: args.includes('--sse'), pg: PG, gatewayWrap: callgrind('gateway'), bareWrap: callgrind('bare'), startTimeoutMs: 600_000 });
  try {
    const rows = [];
    for (const kind of KINDS) {
      const g = await measure('gateway', b.gatewayPid, new URL(b.gateway).origin, b.gatewayPath, b.auth, kind);
      const upPath = new URL(b.upstream.url).pathname;
      const r = await measure('bare', b.barePid, b.bare.url, upPath, {}, kind);
      rows.push({
        kind, gateway: Math.round(g.total), bare: Math.round(r.total), ratio: +(g.total / r.total).toFixed(2),
        gatewayMain: Math.round(g.main), bareMain: Math.round(r.main), mainRatio: +(g.main / r.main).toFixed(2),
      });
    }
    console.log('\nmethod      conns | gateway instr/req | bare proxy instr/req | ratio | main thread: gateway | bare proxy | ratio');
    for (const r of rows) {
      console.log(`${r.kind.padEnd(11)} ${String(CONNS).padStart(5)} | ${fmt(r.gateway).padStart(17)} | ${fmt(r.bare).padStart(20)} | ${r.ratio.toFixed(2).padStart(5)} | `
        + `${fmt(r.gatewayMain).padStart(20)} | ${fmt(r.bareMain).padStart(10)} | ${r.mainRatio.toFixed(2).padStart(5)}`);
    }
    console.log(THREADS_LEGEND);
    console.log(`datastores: ${PG ? 'PostgreSQL (the gateway process alone is counted)' : 'embedded PGlite (the database inside the gateway process is counted too)'}; rules: ${args.includes('--no-rules') ? 'none' : opt('rules', 'the bench:mcp set')}`);
    console.log(JSON.stringify({ conns: CONNS, requests: REQUESTS, rows }));
  } finally {
    b.stop();
    await new Promise((r) => setTimeout(r, 500));
    if (args.includes('--keep')) console.log(`callgrind files kept in ${outDir} (callgrind_annotate FILE)`);
    else rmSync(outDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
