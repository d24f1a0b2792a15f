// The embedded database belongs to one process at a time (PGlite does not lock its directory). `tollgate serve` and
// an admin CLI that opens the data dir itself both hold this lock file while they use it; a second process either
// waits for the server's admin endpoint (CLI) or stops with a clear message (serve).
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'data-dir.lock';

export interface LockHolder {
  pid: number;
  role: 'serve' | 'admin';
}

export class DataDirBusy extends Error {
  constructor(readonly holder: LockHolder, dataDir: string) {
    super(`the data dir ${dataDir} is in use by another tollgate ${holder.role === 'serve' ? 'server' : 'admin command'} (pid ${holder.pid})`);
  }
}

/** True while a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLock(dataDir: string): LockHolder | undefined {
  try {
    const h = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as LockHolder;
    return Number.isInteger(h.pid) && processAlive(h.pid) ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock or throws DataDirBusy; a lock left by a dead process is taken over. Returns the release function. */
export function acquireDataDirLock(dataDir: string, role: LockHolder['role']): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, role }));
      closeSync(fd);
      return () => {
        try {
          if ((JSON.parse(readFileSync(path, 'utf8')) as LockHolder).pid === process.pid) unlinkSync(path);
        } catch { /* already gone */ }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(dataDir);
      if (holder) throw new DataDirBusy(holder, dataDir);
      try {
        unlinkSync(path); // stale: its process is gone
      } catch { /* raced with another taker */ }
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
