// Leader election with a coordination.k8s.io Lease, so that of several replicas only one reconciles. A replica takes
// the Lease when it is free or when its holder has not renewed it for leaseDuration, judged by when *this* replica
// last saw the Lease change (not by comparing the holder's timestamps with our clock, which may be skewed). Every
// write carries the resourceVersion it read, so two candidates cannot both win. A leader that cannot renew within
// renewDeadline stops leading (the caller exits, and the next replica takes over once the Lease expires).
import type { Logger } from '@tollgate/contract';
import type { KubeClient } from './kube/client.ts';
import { paths } from './kube/objects.ts';

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  log: Logger;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

/** A Lease's MicroTime: RFC 3339 with microseconds. */
const microTime = (d = new Date()) => d.toISOString().replace(/Z$/, '000Z');

export class LeaderElector {
  readonly #client: KubeClient;
  readonly #o: LeaderOptions;
  #observed: { rv: string; holder: string; at: number } | undefined;
  #leading = false;
  #stopped = false;

  constructor(client: KubeClient, o: LeaderOptions) {
    this.#client = client;
    this.#o = o;
  }

  get leading(): boolean { return this.#leading; }

  /**
   * Campaigns until this replica leads (resolves true) or stop() is called (resolves false). Once leading, renews in
   * the background and calls onLost if a renewal misses the deadline.
   */
  async acquire(onLost: () => void): Promise<boolean> {
    let waitingLogged = false;
    while (!this.#stopped) {
      if (await this.#tryAcquireOrRenew()) {
        this.#leading = true;
        this.#o.log.info('became the leader', { lease: `${this.#o.namespace}/${this.#o.name}`, identity: this.#o.identity });
        void this.#renewLoop(onLost);
        return true;
      }
      if (!waitingLogged) {
        this.#o.log.info('another replica leads; standing by', { lease: `${this.#o.namespace}/${this.#o.name}`, holder: this.#observed?.holder });
        waitingLogged = true;
      }
      await sleep(this.#o.retryPeriodMs);
    }
    return false;
  }

  async #renewLoop(onLost: () => void): Promise<void> {
    let lastRenew = Date.now();
    while (!this.#stopped && this.#leading) {
      await sleep(this.#o.retryPeriodMs);
      if (this.#stopped) return;
      if (await this.#tryAcquireOrRenew()) {
        lastRenew = Date.now();
        continue;
      }
      if (this.#stopped) return; // released on the way out: not a loss
      if (Date.now() - lastRenew >= this.#o.renewDeadlineMs || this.#observed?.holder !== this.#o.identity) {
        this.#leading = false;
        this.#o.log.error('lost the leadership', { lease: `${this.#o.namespace}/${this.#o.name}`, holder: this.#observed?.holder });
        onLost();
        return;
      }
    }
  }

  /** Gives the Lease up (graceful shutdown), so another replica need not wait for it to expire. */
  async release(): Promise<void> {
    this.#stopped = true;
    if (!this.#leading) return;
    this.#leading = false;
    const r = await this.#client.get<Lease>(paths.lease(this.#o.namespace, this.#o.name));
    if (!r.ok || r.body.spec.holderIdentity !== this.#o.identity) return;
    const released: Lease = { ...r.body, spec: { ...r.body.spec, holderIdentity: null, acquireTime: null, renewTime: null, leaseDurationSeconds: 1 } };
    const w = await this.#client.replace(paths.lease(this.#o.namespace, this.#o.name), released);
    if (w.ok) this.#o.log.info('released the leadership', { lease: `${this.#o.namespace}/${this.#o.name}` });
  }

  stop(): void {
    this.#stopped = true;
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const path = paths.lease(this.#o.namespace, this.#o.name);
    const got = await this.#client.get<Lease>(path);
    if (!got.ok && got.status === 404) return this.#create(now);
    if (!got.ok) {
      this.#o.log.warn('reading the leader Lease failed', { status: got.status, error: got.message });
      return false;
    }
    return this.#takeOrRenew(path, got.body, now);
  }

  async #create(now: Date): Promise<boolean> {
    const lease: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.#o.name, namespace: this.#o.namespace }, spec: this.#spec(now, 0) };
    const c = await this.#client.create<Lease>(paths.leases(this.#o.namespace), lease);
    if (c.ok) this.#observe(c.body);
    return c.ok;
  }

  /** Renews our own Lease, or takes one whose holder let it expire; false while another holder's is still valid. */
  async #takeOrRenew(path: string, lease: Lease, now: Date): Promise<boolean> {
    this.#observe(lease);
    const holder = lease.spec.holderIdentity ?? '';
    const mine = holder === this.#o.identity;
    const durationMs = (lease.spec.leaseDurationSeconds ?? 15) * 1000;
    const free = !holder || Date.now() - this.#observed!.at >= durationMs;
    if (!mine && !free) return false;
    const transitions = (lease.spec.leaseTransitions ?? 0) + (mine ? 0 : 1);
    const next: Lease = { ...lease, spec: this.#spec(now, transitions, mine ? lease.spec.acquireTime : undefined) };
    const w = await this.#client.replace<Lease>(path, next); // carries metadata.resourceVersion: a conflict loses
    if (w.ok) this.#observe(w.body);
    return w.ok;
  }

  #spec(now: Date, transitions: number, acquireTime?: string | null) {
    return {
      holderIdentity: this.#o.identity,
      leaseDurationSeconds: Math.ceil(this.#o.leaseDurationMs / 1000),
      acquireTime: acquireTime ?? microTime(now),
      renewTime: microTime(now),
      leaseTransitions: transitions,
    };
  }

  #observe(lease: Lease): void {
    const rv = lease.metadata.resourceVersion ?? '';
    if (this.#observed?.rv === rv) return;
    this.#observed = { rv, holder: lease.spec.holderIdentity ?? '', at: Date.now() };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
