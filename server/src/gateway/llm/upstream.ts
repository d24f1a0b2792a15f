// The upstream side of an LLM request: where a provider base URL is reached, through the pool's pinned agent for
// that provider origin and DNS pin (one keep-alive pool per origin and pin, shared by the provider's proxies). The
// pool, the header policy (client credentials stripped, the stored provider key injected, hop-by-hop headers removed
// both ways) and the call are the gateway's, shared with MCP proxies (../upstream/). Bodies are never decompressed
// or changed: the gateway asks the provider for `identity` encoding so the accounting tap can read usage from the
// bytes it forwards.
import type { Dispatcher } from 'undici';
import type { Pin } from '../../net/upstream-guard.ts';
import { PinnedPool } from '../upstream/pool.ts';

export interface UpstreamTarget {
  origin: string;
  /** Path prefix of the provider base URL ('' for a bare origin). */
  basePath: string;
  dispatcher: Dispatcher;
}

/** Provider connections stay warm longer than the pinned agents' default (30 s). */
export function providerPool(): PinnedPool {
  return new PinnedPool({ keepAliveTimeoutMs: 60_000 });
}

/**
 * The pinned target of a provider base, or undefined when the proxy has no pin for that host (yet): a provider host
 * is never contacted by name, so DNS cannot steer provider-key-bearing traffic elsewhere (docs/llm-proxies.md).
 */
export function providerTarget(pool: PinnedPool, baseUrl: string, pin: Pin | null): UpstreamTarget | undefined {
  const u = new URL(baseUrl);
  if (!pin || pin.hostname !== u.hostname.replace(/^\[|\]$/g, '')) return undefined;
  const dispatcher = pool.agent(`${u.origin}|${pin.ip}:${pin.port}`, pin);
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, ''), dispatcher };
}
