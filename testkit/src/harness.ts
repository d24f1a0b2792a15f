// Starts a real Tollgate (API + gateway) on free loopback ports for tests. With DATABASE_URL / REDIS_URL set (CI)
// it uses the real datastores, isolated by a fresh PostgreSQL schema and Redis key prefix per app; otherwise
// in-memory PGlite and in-process state.
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { ApiClient, type ApiResult } from '@tollgate/contract';
import { startTollgate, type StartOptions, type Tollgate } from '@tollgate/server/src/app.ts';
import { loadConfig, type Config, type Role } from '@tollgate/server/src/config/config.ts';
import { createUser, issuePat, setConsumerTags } from '@tollgate/server/src/identity/users.ts';
import { silentLogger, createLogger } from '@tollgate/server/src/log.ts';
import { unixNow } from '@tollgate/server/src/services.ts';

export interface TestUser {
  userId: string;
  consumerId: string;
  email: string;
  pat: string;
}

export interface HttpResult<T = any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Raw body string (sent as-is). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: Tollgate;
  api: string;
  gateway: string;
  config: Config;
  createUser(email?: string): Promise<TestUser>;
  /**
   * Replaces the user's consumer tags (quota overrides such as `private:permissions:llm:limit:N`); tests that make
   * many proxies for one user lift its quotas this way (the quotas have their own tests).
   */
  setUserTags(user: TestUser, tags: string[]): Promise<void>;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<HttpResult<T>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The typed client (contract/src/api/client.ts) on this app's API with a PAT: for tests that use the API as a tool. */
  client(token: string): ApiClient;
  /**
   * Makes every row the app buffers visible at once, instead of waiting for the writers' timers: waits for the LLM
   * requests in flight to be accounted, then writes usage, budget charges, conversation logs and audit events.
   */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface TestAppOptions extends Omit<StartOptions, 'inMemoryDb'> {
  role?: Role;
  env?: Record<string, string>;
  /** Keep SSRF checks strict (no loopback upstreams, https only). Default: loopback and http allowed. */
  strictUpstreams?: boolean;
  /** Reuse a schema/prefix (two processes sharing one datastore). */
  isolation?: { schema: string; redisPrefix: string; masterKey: string };
}

/**
 * The answer of a typed-client call that must succeed; a failure fails the test with the server's status and message.
 * The kits build bodies from loosely typed test input (rules as `unknown[]`) and cast them to the route's body type:
 * the server validates them, so a test that sends something invalid learns why here.
 */
export function must<T>(r: ApiResult<T>): T {
  assert.ok(r.ok, r.ok ? '' : `${r.error.status} ${r.error.message}`);
  return r.body;
}

export const TEST_PASSWORD = 'correct horse battery staple';

export function newIsolation() {
  const id = randomBytes(5).toString('hex');
  return { schema: `t_${id}`, redisPrefix: `t_${id}:`, masterKey: randomBytes(32).toString('base64') };
}

/**
 * Errors that reached the process (an 'error' event nobody listened to, a rejection nobody handled) while a test app
 * ran. In production such an error stops `tollgate serve`; node's test runner would only blame whichever hook created
 * the server, so every test app fails its own close() with the errors instead, in the file that caused them.
 */
const escaped: unknown[] = [];
let watching = 0;
const onUncaught = (err: unknown) => { escaped.push(err); };
const onRejection = (err: unknown) => { escaped.push(err); };

function watchEscapes(): () => void {
  if (watching++ === 0) {
    process.on('uncaughtExceptionMonitor', onUncaught);
    process.on('unhandledRejection', onRejection);
  }
  const from = escaped.length;
  return () => {
    const mine = escaped.slice(from);
    if (--watching === 0) {
      process.off('uncaughtExceptionMonitor', onUncaught);
      process.off('unhandledRejection', onRejection);
      escaped.length = 0;
    }
    if (mine.length) {
      const list = mine.map((err) => (err instanceof Error ? err.stack ?? err.message : String(err))).join('\n---\n');
      throw new Error(`${mine.length} error(s) escaped to the process while this test app ran (each would stop a real gateway):\n${list}`);
    }
  };
}

export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const checkEscapes = watchEscapes();
  const iso = opts.isolation ?? newIsolation();
  const env: Record<string, string | undefined> = {
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    TOLLGATE_DB_SCHEMA: iso.schema,
    TOLLGATE_REDIS_PREFIX: iso.redisPrefix,
    TOLLGATE_MASTER_KEY: iso.masterKey,
    TOLLGATE_API_PORT: '0',
    TOLLGATE_GATEWAY_PORT: '0',
    TOLLGATE_GATEWAY_ADMIN_PORT: '0',
    TOLLGATE_CONFIG_POLL_MS: '1000',
    TOLLGATE_CHECK_RESPONSES: 'true',
    ...(opts.strictUpstreams ? {} : { TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8,::1/128', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true' }),
    ...opts.env,
  };
  const config = loadConfig(env);
  const log = process.env.TOLLGATE_TEST_LOG ? createLogger({ test: true }, 'debug') : silentLogger;
  const app = await startTollgate(config, { ...opts, log: opts.log ?? log, inMemoryDb: !config.databaseUrl });
  const api = app.apiUrl ?? '';
  const gateway = app.gateway?.url ?? '';
  let n = 0;

  async function request(method: string, path: string, o: RequestOptions = {}): Promise<HttpResult> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const base = path.startsWith('http') ? '' : api;
    const r = await fetch(base + path, { method, headers, body });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch { /* not JSON */ }
    return { status: r.status, body: parsed, text, headers: r.headers };
  }

  return {
    app, api, gateway, config, request,
    client: (token) => new ApiClient({ endpoint: api, token, timeoutMs: 30_000, userAgent: 'tollgate-tests' }),
    async flush() {
      if (app.gateway) await app.gateway.flush();
      else await app.services.audit.flush();
    },
    async createUser(email?: string) {
      const e = email ?? `user${++n}-${randomBytes(3).toString('hex')}@example.test`;
      const now = unixNow(app.services.clock);
      const u = await app.services.db.tx(async (q) => {
        const { userId, consumerId } = await createUser(q, { email: e, password: TEST_PASSWORD }, now);
        const { token, configVersion } = await issuePat(q, consumerId, now);
        return { userId, consumerId, email: e, pat: token, configVersion };
      });
      await app.services.configChanged(u.configVersion);
      return { userId: u.userId, consumerId: u.consumerId, email: u.email, pat: u.pat };
    },
    async setUserTags(user, tags) {
      await app.services.configChanged(await setConsumerTags(app.services.db, user.consumerId, ['private:permissions:user', ...tags]));
    },
    async close() {
      const db = app.services.db;
      if (db.kind === 'postgres' && !opts.isolation) await db.query(`DROP SCHEMA IF EXISTS ${iso.schema} CASCADE`).catch(() => undefined);
      await app.close();
      checkEscapes();
    },
  };
}
