// What the embedded database's thread spends its CPU on, statement by statement. Two uses:
//
// 1. Preload for the measured gateway (`TOLLGATE_BENCH_GATEWAY_NODE_ARGS="--import ./bench/pglite-statements.mjs"`,
//    with TOLLGATE_PGLITE_STATS set to a file). In the PGlite thread only, every `query` and `exec` is timed in that
//    thread's own CPU time (/proc/thread-self/schedstat, nanoseconds), grouped by the statement's first words. Every
//    second a line of JSON with the running totals and the thread's whole CPU time is appended to the file.
// 2. `node bench/pglite-statements.mjs FILE [--seconds N]`: N seconds of such a file (default 5), the window with
//    the most audit events (the benchmark's measured load), else the one whose thread CPU grew the most: per
//    statement, how often it ran, its CPU in all and per run, and for the audit batches the events they carried;
//    then the thread's CPU per audit event (one per request in bench:llm and bench:mcp), in all and outside any
//    statement.
//
// Linux only (schedstat). The timing costs two small file reads per statement, a few µs, left out of its figures.
import { appendFileSync, readFileSync } from 'node:fs';
import { setInterval } from 'node:timers';
import { isMainThread } from 'node:worker_threads';

const file = process.env.TOLLGATE_PGLITE_STATS;
if (!isMainThread && file) await instrument(file);
else if (isMainThread && process.argv[1]?.endsWith('pglite-statements.mjs')) report(process.argv[2], Number(argValue('--seconds') ?? 5));

function argValue(name) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function instrument(out) {
  const { PGlite } = await import('@electric-sql/pglite');
  const cpuNs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  const stats = new Map();
  let ownNs = 0;
  const record = (sql, ns, params) => {
    const t0 = cpuNs();
    const key = sql.replace(/\s+/g, ' ').trim().slice(0, 60);
    const s = stats.get(key) ?? { n: 0, ns: 0, events: 0 };
    s.n++;
    s.ns += ns;
    if (key.startsWith('INSERT INTO audit_events') && typeof params?.[0] === 'string') {
      for (let i = params[0].indexOf('"eventType"'); i >= 0; i = params[0].indexOf('"eventType"', i + 1)) s.events++;
    }
    stats.set(key, s);
    ownNs += cpuNs() - t0;
  };
  for (const op of ['query', 'exec']) {
    const original = PGlite.prototype[op];
    PGlite.prototype[op] = async function timed(sql, params, ...rest) {
      const t0 = cpuNs();
      try {
        return await original.call(this, sql, params, ...rest);
      } finally {
        const ns = cpuNs() - t0;
        record(sql, ns, op === 'query' ? params : undefined);
      }
    };
  }
  setInterval(() => {
    appendFileSync(out, JSON.stringify({ at: Date.now(), threadNs: cpuNs(), ownNs, stats: Object.fromEntries(stats) }) + '\n');
  }, 1000).unref();
}

function report(path, seconds) {
  if (!path) {
    console.error('usage: node bench/pglite-statements.mjs FILE [--seconds N]');
    process.exit(2);
  }
  const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  if (lines.length <= seconds) {
    console.error(`${path}: ${lines.length} snapshots, fewer than the ${seconds} s asked for`);
    process.exit(1);
  }
  // The window with the most audit events is the benchmark's measured load; without any, the busiest one.
  const score = (i) => auditEvents(lines[i + seconds]) - auditEvents(lines[i]) || busy(lines[i], lines[i + seconds]) / 1e12;
  let best = 0;
  for (let i = 0; i + seconds < lines.length; i++) if (score(i) > score(best)) best = i;
  const [a, b] = [lines[best], lines[best + seconds]];
  const threadMs = busy(a, b) / 1e6;
  const rows = Object.entries(b.stats).map(([sql, s]) => {
    const before = a.stats[sql] ?? { n: 0, ns: 0, events: 0 };
    return { sql, n: s.n - before.n, ms: (s.ns - before.ns) / 1e6, events: s.events - before.events };
  }).filter((r) => r.n > 0).sort((x, y) => y.ms - x.ms);
  const inStatements = rows.reduce((sum, r) => sum + r.ms, 0);
  const events = rows.reduce((sum, r) => sum + r.events, 0);
  console.log(`${seconds} s of ${path} (${((b.at - a.at) / 1000).toFixed(1)} s between snapshots): PGlite thread CPU ${threadMs.toFixed(0)} ms, ${inStatements.toFixed(0)} ms of it in statements`);
  console.log(`${'CPU ms'.padStart(8)} ${'runs'.padStart(6)} ${'µs/run'.padStart(8)} ${'events/run'.padStart(10)}  statement`);
  for (const r of rows) {
    console.log(`${r.ms.toFixed(1).padStart(8)} ${String(r.n).padStart(6)} ${(r.ms * 1000 / r.n).toFixed(0).padStart(8)} ${(r.events ? (r.events / r.n).toFixed(0) : '').padStart(10)}  ${r.sql}`);
  }
  if (events) {
    console.log(`per audit event (${events}): thread CPU ${(threadMs * 1000 / events).toFixed(1)} µs, of which outside statements ${((threadMs - inStatements) * 1000 / events).toFixed(1)} µs`);
  }
}

function auditEvents(line) {
  return Object.values(line.stats).reduce((sum, s) => sum + s.events, 0);
}

/** The thread's CPU between two snapshots, without the instrument's own. */
function busy(a, b) {
  return (b.threadNs - a.threadNs) - (b.ownNs - a.ownNs);
}
