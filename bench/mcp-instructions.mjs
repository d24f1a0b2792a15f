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
/* global setTimeout */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { args, moveLoadGeneratorOffCore0, opt } from './common.mjs';
import { openSession, requestBody, startMcpBench } from './mcp-setup.mjs';

const WARMUP = Number(opt('warmup', '3000'));
const REQUESTS = Number(opt('requests', '2000'));
const CONNS = Number(opt('conns', '16'));
const KINDS = opt('kinds', 'tools/call').split(',');
const PG = !!process.env.DATABASE_URL && !args.includes('--embedded');

moveLoadGeneratorOffCore0(import.meta.url);

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('valgrind is not installed (Debian package valgrind)');
  process.exit(2);
}

const outDir = mkdtempSync(join(tmpdir(), 'tollgate-callgrind-'));
const callgrind = (name) => ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${join(outDir, `${name}.%p`)}`];

function control(pid, ...flags) {
  const r = spawnSync('callgrind_control', [...flags, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control ${flags.join(' ')} ${pid}: ${r.stderr || r.stdout}`);
}

/** Instructions (Ir) of the newest dump of a process. */
function lastDumpInstructions(name, pid) {
  // Dumps are <name>.<pid>.<n>; the file without a number is written at exit.
  const base = `${name}.${pid}`;
  const dumpNo = (f) => Number(f.slice(base.length + 1) || 0);
  const files = readdirSync(outDir).filter((f) => f === base || f.startsWith(`${base}.`)).sort((a, b) => dumpNo(a) - dumpNo(b));
  const text = readFileSync(join(outDir, files.at(-1)), 'utf8');
  const m = /^(?:summary|totals):\s+(\d+)/m.exec(text);
  if (!m) throw new Error(`no totals in ${files.at(-1)}`);
  return Number(m[1]);
}

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
    const perRequest = lastDumpInstructions(name, pid) / REQUESTS;
    console.log(`${Math.round(perRequest).toLocaleString('en')} instructions per request${errors ? ` (${errors} errors)` : ''}`);
    return perRequest;
  } finally {
    await pool.close();
  }
}

async function main() {
  const b = await startMcpBench({ sse: args.includes('--sse'), pg: PG, gatewayWrap: callgrind('gateway'), bareWrap: callgrind('bare'), startTimeoutMs: 600_000 });
  try {
    const rows = [];
    for (const kind of KINDS) {
      const g = await measure('gateway', b.gatewayPid, new URL(b.gateway).origin, b.gatewayPath, b.auth, kind);
      const upPath = new URL(b.upstream.url).pathname;
      const r = await measure('bare', b.barePid, b.bare.url, upPath, {}, kind);
      rows.push({ kind, gateway: Math.round(g), bare: Math.round(r), ratio: +(g / r).toFixed(2) });
    }
    console.log('\nmethod      conns | gateway instr/req | bare proxy instr/req | ratio');
    for (const r of rows) console.log(`${r.kind.padEnd(11)} ${String(CONNS).padStart(5)} | ${r.gateway.toLocaleString('en').padStart(17)} | ${r.bare.toLocaleString('en').padStart(20)} | ${r.ratio.toFixed(2).padStart(5)}`);
    console.log(`datastores: ${PG ? 'PostgreSQL (the gateway process alone is counted)' : 'embedded PGlite (the database inside the gateway process is counted too)'}; rules: ${args.includes('--no-rules') ? 'none' : opt('rules', 'the bench:mcp set')}`);
    console.log(JSON.stringify({ conns: CONNS, requests: REQUESTS, rows }));
  } finally {
    b.stop();
    await new Promise((r) => setTimeout(r, 500));
    if (args.includes('--keep')) console.log(`callgrind files kept in ${outDir} (callgrind_annotate FILE)`);
    else rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
