// The primary side of `tollgate serve --workers N` (docs/scaling.md): N gateway worker processes (node:cluster)
// share the gateway's port and its admin port; each is a gateway replica of its own on the shared PostgreSQL and
// Redis, so limits, budgets, caches and bans hold across them as across pods. A worker that dies is replaced.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../log.ts';
import { WORKER_ENV, type WorkerMessage } from './messages.ts';

/** A replacement for a worker that died within this long of its start waits this long first (no tight crash loop). */
const RESTART_BACKOFF_MS = 1000;

export interface WorkerPool {
  /** The gateway's listeners, as the first worker reported them. */
  url: string;
  adminUrl: string;
  /** Stops every worker (SIGTERM: each drains and flushes like a stopping gateway) and waits until they exit. */
  stop(): Promise<void>;
}

/** A worker exited before it served (its own error line is above); `tollgate serve` exits 1 with this line. */
export class WorkerStartFailed extends Error {
  override readonly name = 'WorkerStartFailed';
}

/** Resolves with the worker's listeners once it serves; rejects if it exits before. */
function readyOf(w: Worker): Promise<Extract<WorkerMessage, { type: 'ready' }>> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null, signal: string | null) => {
      reject(new WorkerStartFailed(`gateway worker ${w.process.pid} exited (${signal ?? `code ${code}`}) before it served: see its error above`));
    };
    w.once('exit', onExit);
    w.on('message', (m: WorkerMessage) => {
      if (m?.type !== 'ready') return;
      w.off('exit', onExit);
      resolve(m);
    });
  });
}

export async function startWorkerPool(count: number, log: Logger): Promise<WorkerPool> {
  let stopping = false;
  const live = new Set<Worker>();

  const spawnWorker = (): Worker => {
    const w = cluster.fork({ [WORKER_ENV]: '1' });
    live.add(w);
    w.once('exit', () => live.delete(w));
    return w;
  };

  /** From its first answer on, a worker that dies is replaced (one that never served is not: a start error repeats). */
  const replaceOnExit = (w: Worker, startedAt: number) => {
    w.once('exit', (code, signal) => {
      if (stopping) return;
      log.error('gateway worker died; starting a replacement', { pid: w.process.pid, code, signal });
      const delay = Date.now() - startedAt < RESTART_BACKOFF_MS ? RESTART_BACKOFF_MS : 0;
      setTimeout(() => {
        if (stopping) return;
        const next = spawnWorker();
        readyOf(next).then(
          () => {
            log.info('gateway worker replaced', { pid: next.process.pid });
            replaceOnExit(next, Date.now());
          },
          (err: unknown) => log.error('replacement gateway worker failed to start; the others keep serving', { err }),
        );
      }, delay).unref();
    });
  };

  const stop = async () => {
    stopping = true;
    await Promise.all([...live].map((w) => new Promise<void>((resolve) => {
      if (w.isDead()) return resolve();
      w.once('exit', () => resolve());
      w.process.kill('SIGTERM');
    })));
  };

  const workers = Array.from({ length: count }, spawnWorker);
  try {
    const ready = await Promise.all(workers.map(readyOf));
    const now = Date.now();
    workers.forEach((w) => replaceOnExit(w, now));
    return { url: ready[0]!.url, adminUrl: ready[0]!.adminUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
