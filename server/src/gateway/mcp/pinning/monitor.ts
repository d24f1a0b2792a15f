// What one gateway knows of upstream tool definitions beyond its snapshot, and how it learns it without a client's
// help. Every difference seen (in a client's tools/list answer, or by the gateway's own tools/list) is enforced here at
// once, then recorded (recorder.ts): persisted, the config version bumped, so every replica's next snapshot carries
// it. The gateway asks the upstream itself when a proxy with pinning on gets traffic and its last check is older than
// the check interval, and when a notifications/tools/list_changed passes through; one check per proxy at a time.
import type { McpProxyConfig } from '../../../snapshot/snapshot.ts';
import type { Snapshot } from '../../../snapshot/snapshot.ts';
import type { Clock, Log } from '../../capabilities.ts';
import { compareTools, type Observation, type PinningView } from './policy.ts';
import type { ToolChangeRecorder } from './recorder.ts';

/** Default interval between the gateway's own tools/list checks of one proxy (only while it gets traffic). */
export const PIN_CHECK_INTERVAL_MS = 60_000;

/** A difference this gateway saw, enforced until its snapshot holds what was recorded (version `until`). */
interface Seen extends Observation {
  until: number;
}

/** What a check needs of a proxy: its upstream and the pinned view it is compared with. */
export interface PinnedProxy {
  proxy: McpProxyConfig;
  view: PinningView;
}

/** The upstream's whole catalog as raw tools/list entries (the gateway's own tools/list). */
export type FetchCatalog = (proxy: McpProxyConfig) => Promise<unknown[]>;

export interface MonitorOptions {
  /**
   * The proxy as the gateway's current snapshot has it (undefined when it is gone or pinning is off). A check runs
   * against it, not against the runtime that asked: a long-lived SSE stream passes list_changed with an old one.
   */
  current(proxyId: string): PinnedProxy | undefined;
  clock: Clock;
  log: Log;
  recorder: ToolChangeRecorder;
  fetchCatalog: FetchCatalog;
  checkIntervalMs?: number;
}

const NONE: ReadonlyMap<string, Observation> = new Map();

export class PinningMonitor {
  private readonly seen = new Map<string, Map<string, Seen>>();
  private readonly lastCheck = new Map<string, number>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly interval: number;

  constructor(private readonly o: MonitorOptions) {
    this.interval = o.checkIntervalMs ?? PIN_CHECK_INTERVAL_MS;
  }

  /** The differences this gateway saw for a proxy that its snapshot (at `version`) may not hold yet. */
  seenFor(proxyId: string, version: number): ReadonlyMap<string, Observation> {
    const m = this.seen.get(proxyId);
    if (!m) return NONE;
    for (const [tool, s] of m) if (version >= s.until) m.delete(tool);
    if (!m.size) this.seen.delete(proxyId);
    return m;
  }

  /**
   * Compares upstream tools (a client's tools/list page or the whole catalog) with the pinned ones; returns the
   * differences. A definition back at the pinned one clears what this gateway saw (a pending row stays: only a
   * person clears it); a new one is enforced now and recorded.
   */
  observe(p: PinnedProxy, tools: readonly unknown[], skip?: ReadonlySet<string>): Observation[] {
    const found = compareTools(p.view, tools, skip);
    const m = this.seen.get(p.proxy.id);
    const differing = new Set(found.map((f) => f.tool));
    if (m) for (const raw of tools) clearIfPinned(m, raw, differing);
    const fresh = found.filter((f) => !this.known(p, f));
    if (!fresh.length) return found;
    const mine = this.seen.get(p.proxy.id) ?? new Map<string, Seen>();
    this.seen.set(p.proxy.id, mine);
    for (const f of fresh) mine.set(f.tool, { ...f, until: Number.POSITIVE_INFINITY });
    this.o.recorder.record(p.proxy, p.view, fresh).then((version) => {
      if (version === undefined) return;
      for (const f of fresh) {
        const s = mine.get(f.tool);
        if (s?.fingerprint === f.fingerprint) s.until = version;
      }
    }, () => undefined);
    return found;
  }

  /** Already pending in the snapshot, or seen here and being (or already) recorded. */
  private known(p: PinnedProxy, f: Observation): boolean {
    if (p.view.pending.get(f.tool)?.fingerprint === f.fingerprint) return true;
    const s = this.seen.get(p.proxy.id)?.get(f.tool);
    return s?.fingerprint === f.fingerprint && s.until !== Number.POSITIVE_INFINITY;
  }

  /** Traffic on a proxy with pinning on: checks the upstream when the last check is older than the interval. */
  touch(proxyId: string): void {
    const last = this.lastCheck.get(proxyId);
    if (last !== undefined && this.o.clock.nowMs() - last < this.interval) return;
    this.check(proxyId);
  }

  /** A notifications/tools/list_changed passed: check now (after the one running, if any). */
  listChanged(proxyId: string): void {
    this.check(proxyId);
  }

  private check(id: string): void {
    this.lastCheck.set(id, this.o.clock.nowMs());
    if (this.running.has(id)) {
      this.again.add(id);
      return;
    }
    const p = this.o.current(id);
    if (!p) return;
    const run = this.o.fetchCatalog(p.proxy).then((tools) => {
      // Compared with the catalog pinned when the answer came (an approval may have landed meanwhile).
      const now = this.o.current(id);
      if (now) this.observe(now, tools);
    }, (err: unknown) => {
      this.o.log.warn('tool pinning: the gateway could not list the upstream tools', { proxy: id, message: (err as Error).message });
    }).finally(() => {
      this.running.delete(id);
      if (this.again.delete(id)) this.check(id);
    });
    this.running.set(id, run);
  }

  /** Waits for the checks and recordings in progress (tests, and a gateway's flush before it stops). */
  async flush(): Promise<void> {
    while (this.running.size) await Promise.all(this.running.values());
    await this.o.recorder.flush();
  }

  /** Forgets proxies that are gone. */
  prune(snap: Snapshot): void {
    for (const id of [...this.seen.keys(), ...this.lastCheck.keys()]) {
      if (snap.proxies.has(id)) continue;
      this.seen.delete(id);
      this.lastCheck.delete(id);
    }
  }
}

/** Drops what this gateway saw of a tool whose upstream definition is the pinned one again. */
function clearIfPinned(m: Map<string, Seen>, raw: unknown, differing: ReadonlySet<string>): void {
  const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
  if (typeof name === 'string' && !differing.has(name)) m.delete(name);
}
