// Summarises the garbage collections of a run from the `--trace-gc-nvp` lines in its output (the benchmarks print the
// gateway's output with TOLLGATE_BENCH_VERBOSE=1): per kind, the count and the pauses, and for scavenges the bytes
// each one copied (survived in the young generation plus promoted) and the bytes allocated in all.
// Usage: node bench/gc-report.mjs LOG
import { readFileSync } from 'node:fs';
import { args, quantile } from './common.mjs';

const file = args[0];
if (!file) {
  console.error('usage: node bench/gc-report.mjs LOG (the output of a run with --trace-gc-nvp)');
  process.exit(2);
}
const gcs = readFileSync(file, 'utf8').split('\n').filter((l) => / pause=/.test(l) && / gc=/.test(l))
  .map((l) => Object.fromEntries([...l.matchAll(/(\w+)=([\w.]+)/g)].map((m) => [m[1], m[2]])));
const ascending = (xs) => [...xs].sort((a, b) => a - b);
const sum = (xs) => xs.reduce((s, x) => s + x, 0);
const NAMES = { s: 'scavenge', mc: 'mark-compact', mmc: 'mark-compact (memory reducing)', ms: 'minor mark-sweep' };
for (const [kind, name] of Object.entries(NAMES)) {
  const of = gcs.filter((g) => g.gc === kind);
  if (!of.length) continue;
  const pauses = ascending(of.map((g) => Number(g.pause)));
  let line = `${name}: ${of.length}, pause p50 ${quantile(pauses, 0.5).toFixed(1)} ms, p90 ${quantile(pauses, 0.9).toFixed(1)} ms, max ${pauses.at(-1).toFixed(1)} ms, total ${sum(pauses).toFixed(0)} ms`;
  if (kind === 's') {
    const copied = ascending(of.map((g) => Number(g.new_space_survived ?? 0) + Number(g.promoted ?? 0)));
    line += `; copied per scavenge p50 ${(quantile(copied, 0.5) / 1024).toFixed(0)} KB, p90 ${(quantile(copied, 0.9) / 1024).toFixed(0)} KB; allocated ${(sum(of.map((g) => Number(g.allocated ?? 0))) / 1048576).toFixed(0)} MB`;
  }
  console.log(line);
}
if (!gcs.length) console.log('no --trace-gc-nvp lines in', file);
