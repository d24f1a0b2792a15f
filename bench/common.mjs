// What the benchmarks share: options, pinning processes to cores, starting a child and waiting for its ready lines,
// reading a process's CPU time and peak RSS from /proc, and calling the management API.
/* global setTimeout, clearTimeout, setInterval, clearInterval, performance, fetch */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const args = process.argv.slice(2);

export function opt(name, dflt) {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
}

export const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
export const ncpu = cpus().length;
export const otherCores = ncpu > 1 ? `1-${ncpu - 1}` : '0';

/** Re-runs the calling script off core 0, which is kept for the measured gateway. Returns only in the re-run. */
export function moveLoadGeneratorOffCore0(scriptUrl) {
  if (!hasTaskset || ncpu < 2 || process.env.TOLLGATE_BENCH_PINNED) return;
  const r = spawnSync('taskset', ['-c', otherCores, process.execPath, ...process.execArgv, fileURLToPath(scriptUrl), ...args], {
    stdio: 'inherit', env: { ...process.env, TOLLGATE_BENCH_PINNED: '1' },
  });
  process.exit(r.status ?? 1);
}

function pinned(cores, argv, nice, wrap = []) {
  const cmd = [...wrap, process.execPath, ...argv];
  const base = hasTaskset ? ['taskset', ['-c', cores, ...cmd]] : [cmd[0], cmd.slice(1)];
  return nice && cores === '0' ? ['nice', ['-n', nice, base[0], ...base[1]]] : base;
}

/**
 * The processes start() spawned and that still run: stopped when this script is interrupted (SIGINT, SIGTERM) or
 * exits without having stopped them, so that an interrupted benchmark leaves no gateway or upstream holding a port.
 */
const running = new Set();
function stopRunning() {
  for (const child of running) child.kill('SIGTERM');
}
process.once('exit', stopRunning);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.once(signal, () => {
    stopRunning();
    process.exit(code);
  });
}

/**
 * Spawns `node <argv>` on `cores` and resolves with the first match (group 1) of each regex in its output.
 * Options: nice (niceness of processes on core 0), timeoutMs, wrap (a command line node runs under, e.g. valgrind). REDIS_URL is passed on only with --redis.
 */
export function start(name, cores, argv, env, patterns, { nice = '', timeoutMs = 60_000, wrap } = {}) {
  const [cmd, a] = pinned(cores, argv, nice, wrap);
  const base = { ...process.env };
  if (!args.includes('--redis')) delete base.REDIS_URL;
  const child = spawn(cmd, a, { cwd: root, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  const found = {};
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out}`)), timeoutMs);
    const onData = (d) => {
      out += d.toString();
      for (const [k, re] of Object.entries(patterns)) {
        const m = re.exec(out);
        if (m && !(k in found)) found[k] = m[1];
      }
      if (Object.keys(found).length === Object.keys(patterns).length) {
        clearTimeout(timer);
        // From now on the output is drained, not kept (set TOLLGATE_BENCH_VERBOSE=1 to see it).
        child.stdout.removeListener('data', onData);
        child.stderr.removeListener('data', onData);
        const sink = (x) => { if (process.env.TOLLGATE_BENCH_VERBOSE) process.stderr.write(x); };
        child.stdout.on('data', sink);
        child.stderr.on('data', sink);
        resolve({ child, ...found });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${out}`)));
  });
}

/**
 * Open loop: starts one request every 1/rate seconds for `ms` (after `warmupMs` at the same rate), whatever the
 * answers, and times each from the moment it was due, not from when it was sent (a closed loop at saturation
 * measures the queue every request waits in; this measures what a request meets at a given load, stalls included).
 * `send(dueNs)` resolves with the latency in ms or rejects. Resolves with the sorted latencies, the errors and the
 * CPU counters of `onWindow` around the measured window (the requests it started, until they all answered).
 */
export async function driveAtRate(rate, ms, warmupMs, send, onWindow) {
  const samples = [];
  let errors = 0;
  const inFlight = new Set();
  const run = async (phaseMs, measured) => {
    const stepNs = 1e9 / rate;
    const t0 = process.hrtime.bigint();
    for (let started = 0; ;) {
      const now = Number(process.hrtime.bigint() - t0);
      if (now >= phaseMs * 1e6) return;
      for (const due = Math.floor(now / stepNs) + 1; started < due; started++) {
        const p = send(t0 + BigInt(Math.round(started * stepNs))).then(
          (v) => { if (measured) samples.push(v); },
          () => { if (measured) errors++; },
        );
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  await run(warmupMs, false);
  await Promise.all(inFlight);
  const before = onWindow?.();
  await run(ms, true);
  await Promise.all(inFlight);
  const after = onWindow?.();
  samples.sort((a, b) => a - b);
  return { samples, errors, cpu: before === undefined ? undefined : { user: after.user - before.user, sys: after.sys - before.sys } };
}

/**
 * The open loop's rate: --rate N, else `fraction` of the gateway's throughput in the reference row (0: skip it).
 * Prints the open loop's title and column header, so the reader sees what runs while it runs.
 */
export function openLoopRate(ref, fraction, what) {
  const given = Number(opt('rate', '0'));
  const rate = Math.round(given || (ref ? ref.g.rps * fraction : 0));
  if (!rate) return 0;
  console.log(`\nopen loop: ${rate} ${what} per second${given ? '' : ` (${fraction} of the gateway's throughput at ${ref.conns} connections)`}, each timed from when it was due`);
  console.log('        | gateway p50 ms   p99 ms  errors  CPU µs/req | bare proxy p50 ms   p99 ms  CPU µs/req | p99 ratio');
  return rate;
}

/** The open loop's row: { p50, p99, errors, cpuUs } of the gateway and of the bare proxy at the same rate. */
export function printOpenLoopRow(rate, g, b) {
  const pad = (v, n) => String(v).padStart(n);
  console.log(`${pad(rate, 7)} | ${pad(g.p50.toFixed(3), 14)} ${pad(g.p99.toFixed(3), 8)} ${pad(g.errors, 7)} ${pad(g.cpuUs.toFixed(0), 11)} | ${pad(b.p50.toFixed(3), 17)} ${pad(b.p99.toFixed(3), 8)} ${pad(b.cpuUs.toFixed(0), 11)} | ${pad((g.p99 / b.p99).toFixed(2), 9)}`);
}

/** The p-quantile (0..1) of an ascending array, NaN when it is empty. */
export const quantile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

/**
 * The fields of a /proc stat file (`/proc/PID/stat`, `/proc/PID/task/TID/stat`) after the command name, which may
 * hold spaces: field N of proc(5) is at index N - 3.
 */
export function procStatFields(path) {
  const s = readFileSync(path, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ');
}

/** utime and stime of a process in seconds, all threads (fields 14 and 15; CLK_TCK is 100). */
export function cpuSeconds(pid) {
  const f = procStatFields(`/proc/${pid}/stat`);
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}

/** CPU clock ticks (user + sys) of each thread of a process; a thread that ended in between is skipped. */
function threadTicks(pid) {
  const ticks = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const f = procStatFields(`/proc/${pid}/task/${tid}/stat`);
      ticks.set(tid, Number(f[11]) + Number(f[12]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ticks;
}

/**
 * Splits a process's CPU over a measurement window by thread: sample() at the window's start and end (it returns
 * readCpu(pid), so that it can stand in for a benchmark's CPU reading), then shares() gives the fractions of the main
 * thread (the event loop), of the busiest other thread and of all the others. Node 20 names every thread "node", so
 * the busiest other one is named by rank: in embedded mode it is the PGlite worker (checked with perf,
 * docs/performance.md "Every thread at full speed"); the rest are V8's compiler and GC helpers and libuv's pool. Full
 * speed, unlike callgrind's per-thread counts.
 */
export function threadSampler(pid, readCpu) {
  const snaps = [];
  const shares = () => {
    const [a, b] = snaps;
    if (!a || !b) return undefined;
    const used = [...b].map(([tid, t]) => [tid, t - (a.get(tid) ?? 0)]);
    const total = used.reduce((n, [, t]) => n + t, 0) || 1;
    const main = (used.find(([tid]) => tid === String(pid))?.[1] ?? 0) / total;
    const busiest = Math.max(0, ...used.filter(([tid]) => tid !== String(pid)).map(([, t]) => t)) / total;
    return { main, busiestOther: busiest, rest: Math.max(0, 1 - main - busiest) };
  };
  return {
    sample() {
      snaps.push(threadTicks(pid));
      return readCpu(pid);
    },
    shares,
    describe() {
      const s = shares();
      const pc = (x) => `${(x * 100).toFixed(0)} %`;
      return s ? `main thread ${pc(s.main)}, busiest other thread ${pc(s.busiestOther)}, the rest ${pc(s.rest)}` : 'not sampled';
    },
  };
}

export function peakRssMb(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export async function api(base, pat, method, path, body) {
  const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text);
}

/** The `tollgate` command: compiled JS when `npm run build` is fresh (the bench scripts build first), else the sources. */
export const tollgateBin = `${root}server/bin/tollgate.mjs`;

/**
 * The environment and node options `npm start` runs `tollgate serve` with (package.json's start script): the
 * embedded-mode process that the benchmarks measure and the memory tests start is the one a user runs
 * (docs/performance.md, "Memory"). Pass startEnv in the process's environment and startNodeArgs before the script.
 */
const startCommand = (() => {
  const script = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).scripts.start;
  const m = /((?:\b[A-Z_]+=\S+ )*)node((?: --[\w-]+(?:=\S+)?)*) server\/bin\/tollgate\.mjs serve\b/.exec(script);
  if (!m) throw new Error(`package.json's start script does not run \`[VAR=value ...] node [options] server/bin/tollgate.mjs serve\`: ${script}`);
  return { env: Object.fromEntries(m[1].split(' ').filter(Boolean).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)])), nodeArgs: m[2].split(' ').filter(Boolean) };
})();
export const startEnv = startCommand.env;
export const startNodeArgs = startCommand.nodeArgs;

/** Extra node options for the measured gateway process (e.g. `--trace-gc`), from TOLLGATE_BENCH_GATEWAY_NODE_ARGS. */
export const extraGatewayNodeArgs = (process.env.TOLLGATE_BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** PostgreSQL topology: creates the bench user with the admin CLI (same env as the server) and returns its PAT. */
export function issueBenchPat(env) {
  const cli = (...a) => {
    const r = spawnSync(process.execPath, [tollgateBin, ...a], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tollgate ${a.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  cli('admin', 'user', 'create', '--email', 'bench@localhost');
  return cli('admin', 'token', 'issue', '--email', 'bench@localhost').split(/\s+/).find((w) => w.startsWith('svc_pat_'));
}

/**
 * Issue 26's targets are ratios to the bare proxy of the same run (absolute times move by ±30 % between runs here):
 * a check of `gateway ÷ bare` against `target`, unmeasured (NaN) when the run skipped the bare proxy.
 */
export function ratioCheck(what, target, gateway, bare) {
  return { what: `${what} ÷ bare`, unit: '×', target, gateway: gateway / bare, bare: bare / bare };
}

/** The 300 MB peak RSS of issue 26 (embedded mode on a laptop). */
export const RSS_TARGET_MB = 300;

/**
 * Prints each target of the issue (all are upper bounds) next to what the gateway and the bare proxy reached in this
 * run, so a reader sees at once which targets hold and whether a miss is the gateway's or the machine's (the bare
 * proxy misses too). checks: [{ what, unit, target: number, gateway, bare? }].
 */
export function printTargets(title, checks) {
  const digits = { ms: 3, '×': 2 };
  const fmt = (v, unit) => (v === undefined || Number.isNaN(v) ? 'n/a' : `${v.toFixed(digits[unit] ?? 0)} ${unit}`);
  console.log(`\n${title}`);
  console.log(`${'target'.padEnd(44)} ${'limit'.padStart(12)} ${'gateway'.padStart(12)} ${'bare proxy'.padStart(12)}  verdict`);
  for (const c of checks) {
    const bareMisses = c.bare !== undefined && !Number.isNaN(c.bare) && c.bare > c.target;
    const verdict = Number.isNaN(c.gateway) ? 'not measured' : c.gateway <= c.target ? 'met' : bareMisses ? 'not met (the bare proxy misses it too)' : 'not met';
    console.log(`${c.what.padEnd(44)} ${`≤ ${fmt(c.target, c.unit)}`.padStart(12)} ${fmt(c.gateway, c.unit).padStart(12)} ${fmt(c.bare, c.unit).padStart(12)}  ${verdict}`);
  }
}

/**
 * Runs `fn` while a 1 ms interval timer on this thread records the gaps between its ticks, with 20 ms of quiet on each
 * side: a gap is how long the event loop was held. Resolves to fn's value, its time and the gaps (ms).
 */
export async function withTickGaps(fn) {
  let last = performance.now();
  const gaps = [];
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 20));
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(timer);
  return { value, ms, gaps };
}

/**
 * A migrated database for a benchmark that runs Tollgate's storage code in-process: embedded PGlite on its thread, or
 * with DATABASE_URL set that PostgreSQL in a schema named `<name>_<pid>`. `close()` drops that schema and closes.
 */
export async function openBenchDb(name) {
  const dist = `${root}server/dist/`;
  const { migrate } = await import(`${dist}db/migrate.js`);
  const url = process.env.DATABASE_URL;
  const schema = `${name}_${process.pid}`;
  const db = url
    ? await (await import(`${dist}db/postgres.js`)).openPostgres(url, schema)
    : await (await import(`${dist}db/pglite.js`)).openPglite(undefined);
  await migrate(db);
  return {
    db,
    what: url ? 'PostgreSQL' : 'embedded (PGlite)',
    async close() {
      if (url) await db.exec(`DROP SCHEMA ${schema} CASCADE`);
      await db.close();
    },
  };
}
