// Connection pools of both proxy kinds: pinned undici agents (../../net/pinned-dispatcher.ts, the SSRF defence: an
// agent connects only to the DNS-checked IP of its host), cached under a key the proxy kind chooses, so keep-alive
// connections survive config versions. Looked up when a runtime is built (once per config version), never per request.
//   MCP: one agent per proxy, replaced when its pin or upstream URL changes, dropped with the proxy.
//   LLM: one agent per provider origin and pin, shared by every proxy of that provider.
import type { Dispatcher } from 'undici';
import { createPinnedAgent, type PinnedAgentOptions } from '../../net/pinned-dispatcher.ts';
import type { Pin } from '../../net/upstream-guard.ts';

/** What a client is told when a stopping gateway refuses or cuts its request (HTTP 503, or a JSON-RPC error). */
export const GATEWAY_STOPPING_MESSAGE = 'Gateway is shutting down';

/** The error requests still in flight get when a stopping gateway cuts them (see PinnedPool.destroy). */
export class GatewayStopping extends Error {
  readonly code = 'TOLLGATE_GATEWAY_STOPPING';
  constructor() {
    super('the gateway is shutting down');
  }
}

export class PinnedPool {
  private readonly agents = new Map<string, { fingerprint: string; agent: Dispatcher }>();

  constructor(private readonly options: PinnedAgentOptions = {}) {}

  /**
   * The agent kept under `key`. One built for another `fingerprint` (a different pin or upstream) is replaced; the
   * old one closes once its requests in flight (open SSE streams) have finished.
   */
  agent(key: string, pin: Pin, fingerprint = key): Dispatcher {
    const cur = this.agents.get(key);
    if (cur?.fingerprint === fingerprint) return cur.agent;
    const agent = createPinnedAgent(pin, this.options);
    this.agents.set(key, { fingerprint, agent });
    if (cur) void cur.agent.close().catch(() => undefined);
    return agent;
  }

  /** Closes and forgets the agents whose key is no longer live (their requests in flight still finish). */
  prune(live: (key: string) => boolean): void {
    for (const [key, cur] of this.agents) {
      if (!live(key)) {
        this.agents.delete(key);
        void cur.agent.close().catch(() => undefined);
      }
    }
  }

  /** Shutdown that lets the requests in flight finish first. */
  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.agent.close().catch(() => undefined)));
    this.agents.clear();
  }

  /** Shutdown that cuts the requests in flight (open streams would otherwise hold it up indefinitely). */
  async destroy(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.agent.destroy(new GatewayStopping()).catch(() => undefined)));
    this.agents.clear();
  }
}
