// Real Redis topologies for the tests of docs/scaling.md: a three-master Redis Cluster, and a Sentinel-managed
// primary with a replica and three sentinels. Every server is a redis-server process of its own on a free loopback
// port, in a temporary directory; close() stops each by its PID and removes the directory.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { freePort, portIsFree } from '@tollgate/testkit/free-port.ts';

const run = promisify(execFile);

export async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 })).stdout.trim();
}

class Servers {
  readonly procs = new Map<number, ChildProcess>();
  readonly dir = mkdtempSync(join(tmpdir(), 'tollgate-redis-topology-'));

  constructor() {
    process.once('exit', () => this.killAll());
  }

  /** Starts redis-server with `args` on `port` and waits until it answers PING. */
  async start(port: number, args: string[]): Promise<void> {
    const p = spawn('redis-server', args, { stdio: 'ignore', cwd: this.dir });
    this.procs.set(port, p);
    await eventually(() => cli(port, 'ping').then((out) => out === 'PONG', () => false), { what: `redis-server on ${port} to answer`, timeoutMs: 10_000, intervalMs: 50 });
  }

  async kill(port: number): Promise<void> {
    const p = this.procs.get(port);
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  }

  killAll(): void {
    for (const p of this.procs.values()) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  }

  async close(): Promise<void> {
    await Promise.all([...this.procs.keys()].map((port) => this.kill(port)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Runs a topology's start; if it fails, stops what it started before the error goes on. A server left running
   * keeps the test process alive after its tests have failed, and the whole run waits for it.
   */
  async closedOnFailure<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (err) {
      await this.close();
      throw err;
    }
  }
}

const BASE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

export interface RedisCluster {
  /** The three masters' ports. */
  ports: number[];
  /** TOLLGATE_REDIS_CLUSTER_NODES. */
  nodes: string;
  close(): Promise<void>;
}

/** Three masters, no replicas (`redis-cli --cluster create`), the 16384 slots split between them. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const s = new Servers();
  return s.closedOnFailure(async () => {
    const ports: number[] = [];
    for (let i = 0; i < 3; i++) ports.push(await clusterPort(ports));
    await Promise.all(ports.map((port) => s.start(port, [
      '--port', String(port), ...BASE, '--dir', s.dir, '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
    ])));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'], { timeout: 30_000 });
    await eventually(async () => (await Promise.all(ports.map((p) => cli(p, 'cluster', 'info')))).every((i) => i.includes('cluster_state:ok')),
      { what: 'the cluster to cover every slot', timeoutMs: 20_000, intervalMs: 100 });
    return { ports, nodes: ports.map((p) => `127.0.0.1:${p}`).join(','), close: () => s.close() };
  });
}

/**
 * A port for a cluster node: free, and with its cluster bus port (10,000 above it) free too. From `freePort`, a
 * node's port is in the kernel's ephemeral range (32768-60999 here) and its bus port among the ports that outgoing
 * connections take; in one CI run a node did not start, and the servers already started kept the test process alive
 * forever. Both ports are now taken below the ephemeral range and checked free (Redis also refuses a cluster port
 * above 55535).
 */
async function clusterPort(taken: readonly number[]): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 10_000 + Math.floor(Math.random() * 10_000);
    if (!taken.includes(port) && (await portIsFree(port)) && (await portIsFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node in 10000-29999');
}

export interface RedisSentinels {
  name: string;
  /** The ports of the data servers (the primary first, then the replica). */
  dataPorts: number[];
  sentinelPorts: number[];
  /** TOLLGATE_REDIS_SENTINELS. */
  sentinels: string;
  /** The port of the primary the sentinels name now. */
  primaryPort(): Promise<number>;
  /** Kills the server on `port` (SIGKILL). */
  kill(port: number): Promise<void>;
  close(): Promise<void>;
}

/** A primary, one replica and three sentinels (quorum 2) that watch it with short timeouts. */
export async function startRedisSentinels(name = 'tollgate'): Promise<RedisSentinels> {
  const s = new Servers();
  return s.closedOnFailure(async () => {
    const [primary, replica] = [await freePort(), await freePort()];
    await s.start(primary, ['--port', String(primary), ...BASE, '--dir', s.dir]);
    await s.start(replica, ['--port', String(replica), ...BASE, '--dir', s.dir, '--replicaof', '127.0.0.1', String(primary)]);
    await eventually(async () => (await cli(replica, 'info', 'replication')).includes('master_link_status:up'), { what: 'the replica to sync', timeoutMs: 10_000, intervalMs: 50 });
    const sentinelPorts = [await freePort(), await freePort(), await freePort()];
    await Promise.all(sentinelPorts.map((port) => {
      const file = join(s.dir, `sentinel-${port}.conf`);
      writeFileSync(file, [
        `port ${port}`, 'bind 127.0.0.1', `dir ${s.dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primary} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`, '',
      ].join('\n'));
      return s.start(port, [file, '--sentinel']);
    }));
    const primaryPort = async () => Number((await cli(sentinelPorts[0]!, 'sentinel', 'get-master-addr-by-name', name)).split('\n')[1]);
    // Each sentinel must know the replica and the other sentinels before a failover can be agreed on.
    await eventually(async () => {
      const seen = await Promise.all(sentinelPorts.map((p) => cli(p, 'sentinel', 'master', name)));
      return seen.every((m) => /num-slaves\n1\b/.test(m) && /num-other-sentinels\n2\b/.test(m));
    }, { what: 'the sentinels to find the replica and each other', timeoutMs: 20_000, intervalMs: 100 });
    return {
      name, dataPorts: [primary, replica], sentinelPorts,
      sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
      primaryPort,
      kill: (port) => s.kill(port),
      close: () => s.close(),
    };
  });
}
