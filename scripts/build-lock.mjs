#!/usr/bin/env node
// One build at a time: test files build the provider (and, when stale, contract/dist) concurrently, and one build's
// `rm -rf contract/dist` must not happen under another's compiler. A lock directory (mkdir is atomic), with a stale
// lock (a killed build) taken over after five minutes.
//   node scripts/build-lock.mjs LOCKDIR COMMAND [ARGS...]   runs the command under the lock, exits with its status
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function withLock(lock, fn) {
  const staleMs = 5 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let age = 0;
      try { age = Date.now() - statSync(lock).mtimeMs; } catch { continue; }
      if (age > staleMs) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try { return fn(); } finally { rmSync(lock, { recursive: true, force: true }); }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [lock, cmd, ...args] = process.argv.slice(2);
  if (!lock || !cmd) {
    process.stderr.write('usage: node scripts/build-lock.mjs LOCKDIR COMMAND [ARGS...]\n');
    process.exit(2);
  }
  const r = withLock(lock, () => spawnSync(cmd, args, { stdio: 'inherit' }));
  process.exit(r.status ?? 1);
}
