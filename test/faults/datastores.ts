// Private datastores for the fault tests: a redis-server and a PostgreSQL cluster of their own on free loopback
// ports, which a test stops, freezes and restarts without touching the machine's shared ones (CI's DATABASE_URL and
// REDIS_URL). Both are real server processes.
//
// PostgreSQL: initdb and pg_ctl come from /usr/lib/postgresql/<version>/bin (Debian/Ubuntu) or `pg_config --bindir`.
// initdb refuses to run as root, so as root every PostgreSQL command runs as the `postgres` system user through
// `runuser -u postgres --`, in a temporary directory handed to that user; as any other user they run as that user.
// The cluster is created with trust authentication on 127.0.0.1 only, fsync off (a test cluster, thrown away).
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { freePort } from '@tollgate/testkit/free-port.ts';

const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------------------- Redis

export const redisMissing = spawnSync('redis-server', ['--version']).status === 0 ? undefined : 'redis-server is not installed';

export class PrivateRedis {
  private proc: ChildProcess | undefined;

  private constructor(readonly port: number, readonly dir: string) {}

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort(), mkdtempSync(join(tmpdir(), 'tollgate-redis-')));
    await r.start();
    stopAtExit(() => r.proc?.kill('SIGKILL'));
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * Starts (or restarts) the server on the same port. No automatic snapshots; a dump.rdb left by shutdownSave()
   * is loaded (Redis back with its data), otherwise it starts empty.
   */
  async start(): Promise<void> {
    this.proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--dbfilename', 'dump.rdb'], { stdio: 'ignore' });
    await eventually(() => this.cli('ping').then((out) => out.includes('PONG'), () => false), { what: 'redis-server to answer', timeoutMs: 10_000, intervalMs: 50 });
  }

  /** Kills the server (SIGKILL): nothing is saved, so the next start() is empty. */
  async kill(): Promise<void> {
    rmSync(join(this.dir, 'dump.rdb'), { force: true });
    await this.signal('SIGKILL');
  }

  /** Stops the server after writing its data to disk: the next start() comes back with the same keys. */
  async shutdownSave(): Promise<void> {
    const exited = this.exited();
    await this.cli('shutdown', 'save').catch(() => undefined); // the connection closes as the server exits
    await exited;
  }

  /** Freezes the process (SIGSTOP): connections stay open and nothing answers. thaw() resumes it. */
  freeze(): void {
    this.proc?.kill('SIGSTOP');
  }

  thaw(): void {
    this.proc?.kill('SIGCONT');
  }

  async cli(...args: string[]): Promise<string> {
    return (await run('redis-cli', ['-p', String(this.port), ...args], { timeout: 5000 })).stdout;
  }

  async close(): Promise<void> {
    this.thaw();
    await this.signal('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private exited(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => p.once('exit', () => resolve()));
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    const exited = this.exited();
    this.proc?.kill(sig);
    await exited;
  }
}

// ----------------------------------------------------------------------------------------------------- PostgreSQL

function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(base, versions[0]!, 'bin');
  }
  const r = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  return dir && existsSync(join(dir, 'initdb')) ? dir : undefined;
}

const isRoot = process.getuid?.() === 0;
const postgresUid = isRoot ? Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()) : NaN;
const pgBin = postgresBinDir();

export const postgresMissing = !pgBin
  ? 'PostgreSQL server binaries (initdb, pg_ctl) are not installed'
  : isRoot && !(postgresUid > 0)
    ? 'running as root without a `postgres` system user to run initdb as'
    : undefined;

/** argv that runs a PostgreSQL binary as the right user (see the header). */
function pgCommand(tool: string, args: string[]): [string, string[]] {
  const exe = join(pgBin!, tool);
  return isRoot ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
}

export class PrivatePostgres {
  private constructor(readonly port: number, readonly dir: string) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-pg-'));
    if (isRoot) chownSync(dir, postgresUid, -1);
    const pg = new PrivatePostgres(await freePort(), dir);
    const [cmd, args] = pgCommand('initdb', ['-D', pg.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await run(cmd, args, { timeout: 60_000 });
    await pg.start();
    stopAtExit(() => {
      const [c, a] = pgCommand('pg_ctl', ['-D', pg.data, '-m', 'immediate', 'stop']);
      spawnSync(c, a, { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    });
    return pg;
  }

  private get data(): string {
    return join(this.dir, 'data');
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    await this.ctl(['-o', `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`, '-l', join(this.dir, 'log'), '-w', 'start']);
  }

  /** `fast`: connections are terminated and the server shuts down cleanly; `immediate`: like a crash. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.ctl(['-m', mode, '-w', 'stop']);
  }

  async close(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async ctl(args: string[]): Promise<void> {
    const [cmd, argv] = pgCommand('pg_ctl', ['-D', this.data, ...args]);
    await run(cmd, argv, { timeout: 60_000 });
  }
}

// A test process that dies (or is stopped by the runner) must not leave servers behind.
const atExit: Array<() => void> = [];
let hooked = false;
function stopAtExit(fn: () => void): void {
  atExit.push(fn);
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const f of atExit) {
      try { f(); } catch { /* best effort */ }
    }
  });
}
