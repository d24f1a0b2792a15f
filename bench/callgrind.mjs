// Counting instructions with valgrind's callgrind, shared by bench/mcp-instructions.mjs and bench/llm-instructions.mjs:
// a process runs under callgrind with instrumentation off, the script switches it on, zeroes and dumps the counters
// around the measured requests, and reads the newest dump: every thread's instructions, and the main thread's alone
// (the event loop, where the requests are handled; the other threads are V8's compiler and GC helpers, libuv's pool
// and, in embedded mode, the PGlite database thread).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Callgrind for processes whose output files go to outDir. */
export function callgrindIn(outDir) {
  /** Instructions (Ir) of the newest dump of a process: all threads, and the main thread (callgrind's thread 1). */
  function lastDump(name, pid) {
    // With --separate-threads, a dump is <name>.<pid>.<n>-<thread> (the files written at exit have no .<n>).
    const dumps = readdirSync(outDir).map((f) => /^(.+)\.(\d+)-(\d+)$/.exec(f)).filter((m) => m && m[1] === `${name}.${pid}`);
    if (!dumps.length) throw new Error(`no callgrind dump of ${name} (pid ${pid}) in ${outDir}`);
    const newest = Math.max(...dumps.map((m) => Number(m[2])));
    let total = 0;
    let main = 0;
    for (const m of dumps.filter((d) => Number(d[2]) === newest)) {
      const t = /^(?:summary|totals):\s+(\d+)/m.exec(readFileSync(join(outDir, m[0]), 'utf8'));
      if (!t) throw new Error(`no totals in ${m[0]}`);
      total += Number(t[1]);
      if (Number(m[3]) === 1) main = Number(t[1]);
    }
    return { total, main };
  }

  return {
    /** The command line a process named `name` runs under (its files are <name>.<pid>[.<dump>]-<thread>). */
    wrap: (name) => ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${join(outDir, `${name}.%p`)}`],

    control(pid, ...flags) {
      const r = spawnSync('callgrind_control', [...flags, String(pid)], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`callgrind_control ${flags.join(' ')} ${pid}: ${r.stderr || r.stdout}`);
    },

    lastDump,

    /** lastDump divided by the `requests` measured, printed as one line; returns { total, main } per request. */
    perRequest(name, pid, requests, errors = 0) {
      const d = lastDump(name, pid);
      const r = { total: d.total / requests, main: d.main / requests };
      console.log(`${formatCount(r.total)} instructions per request, ${formatCount(r.main)} on the main thread${errors ? ` (${errors} errors)` : ''}`);
      return r;
    },
  };
}

export const formatCount = (n) => Math.round(n).toLocaleString('en');

/** What "all threads" holds, printed under each result table. */
export const THREADS_LEGEND = 'all threads: the main thread (the event loop), V8\'s compiler and GC helpers, libuv\'s pool and, embedded, the database thread';
