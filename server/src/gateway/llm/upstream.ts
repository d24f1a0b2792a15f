// The upstream side of an LLM request: one keep-alive connection pool per provider origin (and DNS pin). The header
// policy (client credentials stripped, the stored provider key injected, hop-by-hop headers removed both ways) is
// the gateway's, shared with MCP proxies (../upstream/headers.ts). Bodies are never decompressed or changed: the
// gateway asks the provider for `identity` encoding so the accounting tap can read usage from the bytes it forwards.
import type { Dispatcher } from 'undici';
import { createPinnedAgent } from '../../net/pinned-dispatcher.ts';
import type { Pin } from '../../net/upstream-guard.ts';

export interface UpstreamTarget {
  origin: string;
  /** Path prefix of the provider base URL ('' for a bare origin). */
  basePath: string;
  dispatcher: Dispatcher;
}

/** Connection pools shared across config versions, so a config change does not drop warm connections. */
export class UpstreamPools {
  private readonly agents = new Map<string, Dispatcher>();

  /**
   * The pinned target of a provider base, or undefined when the proxy has no pin for that host (yet): a provider host
   * is never contacted by name, so DNS cannot steer provider-key-bearing traffic elsewhere (docs/llm-proxies.md).
   */
  target(baseUrl: string, pin: Pin | null): UpstreamTarget | undefined {
    const u = new URL(baseUrl);
    if (!pin || pin.hostname !== u.hostname.replace(/^\[|\]$/g, '')) return undefined;
    const key = `${u.origin}|${pin.ip}:${pin.port}`;
    let dispatcher = this.agents.get(key);
    if (!dispatcher) {
      dispatcher = createPinnedAgent(pin, { keepAliveTimeoutMs: 60_000 });
      this.agents.set(key, dispatcher);
    }
    return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, ''), dispatcher };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.agents.values()].map((a) => a.close()));
    this.agents.clear();
  }
}
