// What a gateway worker tells the primary (node:cluster IPC), and how a worker knows it is one.

/** Set by the primary in each worker's environment (a worker re-runs `tollgate serve` from the start). */
export const WORKER_ENV = 'TOLLGATE_GATEWAY_WORKER';

export type WorkerMessage = { type: 'ready'; url: string; adminUrl: string };
