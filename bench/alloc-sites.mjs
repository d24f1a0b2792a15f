// Preload for the measured gateway (`TOLLGATE_BENCH_GATEWAY_NODE_ARGS="--import ./bench/alloc-sites.mjs"`, with
// TOLLGATE_ALLOC_DIR set): V8's sampling heap profiler, started in the process itself, keeping the samples of objects
// that a scavenge did not collect. Those are what a scavenge copies, and so what its pauses are made of. Every 3 s the
// profile so far is written to TOLLGATE_ALLOC_DIR as NN-Ts.heapprofile; bench/alloc-report.mjs subtracts two of them.
//
// Caveat: a mark-compact also collects the young generation, and the objects it collects stay in the profile (V8 only
// tells minor from major collections), so sites that allocate a lot show up a little even when nothing of theirs
// survives a scavenge; compare sites, and confirm a change with the scavenges' own figures (--trace-gc-nvp,
// bench/gc-report.mjs).
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setInterval } from 'node:timers';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.TOLLGATE_ALLOC_DIR;
if (isMainThread && dir) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: Number(process.env.TOLLGATE_ALLOC_INTERVAL ?? 8192),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.TOLLGATE_ALLOC_ALL === '1',
  });
  const t0 = Date.now();
  let n = 0;
  setInterval(() => session.post('HeapProfiler.getSamplingProfile', (err, r) => {
    if (err) return;
    const name = `${String(n++).padStart(2, '0')}-${Math.round((Date.now() - t0) / 1000)}s.heapprofile`;
    writeFileSync(join(dir, name), JSON.stringify(r.profile));
  }), 3000).unref();
}
