// Holds the gateway's current Snapshot. Reloads when a change is announced on the state bus and polls the version
// as a safety net, so the request path only ever reads memory.
import { CONFIG_CHANNEL, readConfigVersion } from './changes.ts';
import type { LoadedConfig } from './assemble.ts';
import { loadConfig } from './load.ts';
import { readSnapshotSchemaVersion, SNAPSHOT_SCHEMA_VERSION, SnapshotSchemaMismatch } from './schema-version.ts';
import type { Snapshot } from './snapshot.ts';
import type { Services } from '../services.ts';

export class ConfigStore {
  private loaded: LoadedConfig | undefined;
  private reloading: Promise<void> | undefined;
  private again = false;
  private poller: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private readonly listeners = new Set<(s: Snapshot) => void>();
  private mismatch: SnapshotSchemaMismatch | undefined;

  /** `onReload` hears how each new snapshot was read (the gateway's metrics count them). */
  constructor(private readonly s: Services, private readonly onReload?: (read: LoadedConfig['read']) => void) {}

  get current(): Snapshot {
    if (!this.loaded) throw new Error('config store not started');
    return this.loaded.snapshot;
  }

  get version(): number {
    return this.loaded?.snapshot.version ?? 0;
  }

  /**
   * `degraded` while the database holds a data-plane schema this gateway does not understand: it keeps serving its
   * last good snapshot, which no longer follows changes (docs/architecture.md, "Data-plane schema version").
   */
  get health(): { status: 'up' } | { status: 'degraded'; reason: string; databaseSchemaVersion: number; gatewaySchemaVersion: number } {
    const m = this.mismatch;
    if (!m) return { status: 'up' };
    return { status: 'degraded', reason: m.message, databaseSchemaVersion: m.databaseVersion, gatewaySchemaVersion: m.gatewayVersion };
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
        // Incremental: only the users whose rows changed since the current snapshot are read again.
        const next = await loadConfig(this.s.db, this.s.secrets, this.loaded);
        if (next !== this.loaded && (!this.loaded || next.snapshot.version >= this.loaded.snapshot.version)) {
          this.onReload?.(next.read);
          this.loaded = next;
          for (const l of this.listeners) l(next.snapshot);
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
      this.mismatch = undefined;
    } catch (err) {
      if (err instanceof SnapshotSchemaMismatch) this.refuse(err);
      else this.s.log.warn('gateway config reload failed; keeping the previous snapshot', { err });
    }
  }

  // Logged at error level on every poll, not once: a skew that outlives the rollout must stay visible in the logs.
  private refuse(err: SnapshotSchemaMismatch): void {
    this.mismatch = err;
    this.s.log.error('gateway refuses the database\'s data-plane schema; serving the last good snapshot, which no longer follows changes', {
      reason: err.message, databaseSchemaVersion: err.databaseVersion, gatewaySchemaVersion: err.gatewayVersion, configVersion: this.version,
    });
  }

  private async poll(): Promise<void> {
    try {
      // A migration changes the schema without bumping the config version, so the poll looks at both.
      const schema = await readSnapshotSchemaVersion(this.s.db);
      if (schema !== SNAPSHOT_SCHEMA_VERSION) return this.refuse(new SnapshotSchemaMismatch(schema, SNAPSHOT_SCHEMA_VERSION));
      if (this.mismatch || (await readConfigVersion(this.s.db)) > this.version) await this.reloadSafe();
    } catch (err) {
      this.s.log.debug('config version poll failed', { err });
    }
  }

  async stop(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    await this.unsubscribe?.();
  }
}
