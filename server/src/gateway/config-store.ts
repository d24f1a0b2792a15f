// Holds the gateway's current Snapshot. Reloads when a change is announced on the state bus and polls the version
// as a safety net, so the request path only ever reads memory.
import { CONFIG_CHANNEL, readConfigVersion } from '../config/changes.ts';
import { loadSnapshot } from '../snapshot/load.ts';
import type { Snapshot } from '../snapshot/snapshot.ts';
import type { Services } from '../services.ts';

export class ConfigStore {
  private snap: Snapshot | undefined;
  private reloading: Promise<void> | undefined;
  private again = false;
  private poller: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private readonly listeners = new Set<(s: Snapshot) => void>();

  constructor(private readonly s: Services) {}

  get current(): Snapshot {
    if (!this.snap) throw new Error('config store not started');
    return this.snap;
  }

  get version(): number {
    return this.snap?.version ?? 0;
  }

  /** Called with every new snapshot (rule engines rebuild their compiled state here, once per version). */
  onChange(fn: (s: Snapshot) => void): void {
    this.listeners.add(fn);
  }

  async start(): Promise<void> {
    await this.reload();
    this.unsubscribe = await this.s.state.subscribe(CONFIG_CHANNEL, (msg) => {
      if (Number(msg) > this.version) void this.reloadSafe();
    });
    this.poller = setInterval(() => void this.poll(), this.s.config.configPollMs);
    this.poller.unref();
  }

  /** Reloads now; concurrent calls coalesce and a call during a reload triggers one more. */
  async reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.again = false;
        const next = await loadSnapshot(this.s.db, this.s.secrets);
        if (!this.snap || next.version >= this.snap.version) {
          this.snap = next;
          for (const l of this.listeners) l(next);
        }
      } while (this.again);
    })().finally(() => { this.reloading = undefined; });
    return this.reloading;
  }

  /** Waits until the store has at least `version` (tests and the API use it to make changes visible at once). */
  async waitFor(version: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.version < version) {
      if (Date.now() > deadline) throw new Error(`gateway config did not reach version ${version}`);
      await this.reload();
    }
  }

  private async reloadSafe(): Promise<void> {
    try {
      await this.reload();
    } catch (err) {
      this.s.log.warn('gateway config reload failed; keeping the previous snapshot', { err });
    }
  }

  private async poll(): Promise<void> {
    try {
      if ((await readConfigVersion(this.s.db)) > this.version) await this.reloadSafe();
    } catch (err) {
      this.s.log.debug('config version poll failed', { err });
    }
  }

  async stop(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    await this.unsubscribe?.();
  }
}
