// A second gateway as a real child process (`tollgate serve --role gateway`) sharing a test app's schema, Redis key
// prefix and master key: how replica tests prove that limits and budgets hold across processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { newIsolation } from './harness.ts';

const BIN = fileURLToPath(new URL('../../bin/tollgate.mjs', import.meta.url));

/** Resolves once the child logs its gateway URL; a child that fails to start is killed and the promise rejects. */
export function startChildGateway(iso: ReturnType<typeof newIsolation>, extraEnv: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
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
      const m = /"msg":"gateway listening".*?"url":"([^"]+)"/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child });
      }
    });
    child.once('exit', (code) => fail(`exited with ${code}`));
  });
}
