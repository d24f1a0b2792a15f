// A second gateway as a real child process (`tollgate serve --role gateway`) sharing a test app's schema, Redis key
// prefix and master key: how replica tests prove that limits and budgets hold across processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.ts';
import { newIsolation, startTestApp, type TestApp } from './harness.ts';

const BIN = fileURLToPath(new URL('../../server/bin/tollgate.mjs', import.meta.url));

export interface ChildGateway {
  url: string;
  /** The child's admin listener (GET /status). */
  adminUrl: string;
  child: ChildProcess;
}

/** Resolves once the child logs its gateway URL; a child that fails to start is killed and the promise rejects. */
export function startChildGateway(iso: ReturnType<typeof newIsolation>, extraEnv: Record<string, string> = {}): Promise<ChildGateway> {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'gateway'], {
    env: {
      ...process.env,
      TOLLGATE_DB_SCHEMA: iso.schema, TOLLGATE_REDIS_PREFIX: iso.redisPrefix, TOLLGATE_MASTER_KEY: iso.masterKey,
      TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0', TOLLGATE_CONFIG_POLL_MS: '500',
      TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8,::1/128', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`child gateway ${why}: ${buf}`));
    };
    const timer = setTimeout(() => fail('did not start'), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      // Whole lines only (the last one may still be arriving).
      const line = buf.split('\n').slice(0, -1).find((l) => l.includes('"msg":"gateway listening"'));
      if (line) {
        const rec = JSON.parse(line) as { url: string; admin: string };
        clearTimeout(timer);
        resolve({ url: rec.url, adminUrl: rec.admin, child });
      }
    });
    child.once('exit', (code) => fail(`exited with ${code}`));
  });
}

/** Resolves once the child gateway serves config `version` or a later one (it follows by pub/sub or its version poll). */
export async function childAtVersion(g: ChildGateway, version: number): Promise<void> {
  await eventually(async () => {
    const r = await fetch(`${g.adminUrl}/status`);
    return ((await r.json()) as { configVersion: number }).configVersion >= version;
  }, { what: `the child gateway at config version ${version}`, timeoutMs: 10_000 });
}

/** A test app (API and gateway A in this process) and a second gateway B as a child process on the same datastores. */
export interface ReplicaPair {
  t: TestApp;
  b: ChildGateway;
  /** Waits until B serves the config that A serves now (after a change made through t). */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** Needs DATABASE_URL and REDIS_URL: with the embedded datastores two processes cannot share state. */
export async function startReplicaPair(env: Record<string, string> = {}): Promise<ReplicaPair> {
  const iso = newIsolation();
  const t = await startTestApp({ isolation: iso, env });
  const b = await startChildGateway(iso, env).catch(async (err: unknown) => {
    await t.close();
    throw err;
  });
  return {
    t, b,
    caughtUp: () => childAtVersion(b, t.app.gateway!.store.version),
    async close() {
      b.child.kill('SIGTERM');
      await t.app.services.db.query(`DROP SCHEMA IF EXISTS ${iso.schema} CASCADE`).catch(() => undefined);
      await t.close();
    },
  };
}
