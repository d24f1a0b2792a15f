// DNS pins of LLM provider hosts. The provider base is deployment configuration, not user input, so pinning it is
// best effort: a create or provider change never fails because DNS is down; the proxy gets `pin: null` and the
// repin job (or POST /api/llm/:id/re-resolve) fills it in. The public bases go through the full SSRF guard; an
// operator override (TOLLGATE_PROVIDER_BASE_URL_*) is trusted: resolved and pinned, never range-checked.
import { bumpConfigVersion } from '../snapshot/changes.ts';
import type { Queryable } from '../db/db.ts';
import { UpstreamRejected, type Pin } from '../net/upstream-guard.ts';
import { setUpstream } from '../proxies/gateway-objects.ts';
import type { Services } from '../services.ts';
import { isOverridden, upstreamBaseUrl } from './registry.ts';
import { type ProviderId } from '@tollgate/contract';

export type PinAttempt = { ok: true; pin: Pin } | { ok: false; error: UpstreamRejected };

export function samePin(a: Pin | null, b: Pin | null): boolean {
  return a === b || (!!a && !!b && a.hostname === b.hostname && a.ip === b.ip && a.port === b.port);
}

/** Resolves and checks the provider's current upstream host. */
export async function pinProvider(s: Pick<Services, 'config' | 'upstreams'>, provider: ProviderId, prefer?: string): Promise<PinAttempt> {
  try {
    const pin = await s.upstreams.pin(upstreamBaseUrl(s.config, provider), { trusted: isOverridden(s.config, provider), prefer });
    return { ok: true, pin };
  } catch (err) {
    if (err instanceof UpstreamRejected) return { ok: false, error: err };
    throw err;
  }
}

/** What the row of an LLM proxy looks like to a refresh. */
export interface LlmPinTarget {
  id: string;
  provider: ProviderId;
  upstreamUrl: string | null;
  pin: Pin | null;
}

export type RefreshOutcome =
  | { kind: 'unchanged'; pin: Pin | null }
  | { kind: 'updated'; pin: Pin | null; version: number }
  /** The answer was refused; the old pin stays unless the upstream host itself changed (then the pin is cleared). */
  | { kind: 'rejected'; pin: Pin | null; error: UpstreamRejected; version?: number }
  /** The proxy was deleted or its provider changed while resolving; the newer write wins. */
  | { kind: 'stale' };

/**
 * Re-resolves a proxy's provider host and, when the deployment's base URL for the provider changed since the
 * proxy was written, moves the gateway upstream to it. Writes only when something changed.
 */
export async function refreshLlmPin(s: Pick<Services, 'config' | 'upstreams' | 'db'>, t: LlmPinTarget): Promise<RefreshOutcome> {
  const url = upstreamBaseUrl(s.config, t.provider);
  const urlChanged = t.upstreamUrl !== url;
  const attempt = await pinProvider(s, t.provider, urlChanged ? undefined : t.pin?.ip);
  if (!urlChanged && attempt.ok && samePin(t.pin, attempt.pin)) return { kind: 'unchanged', pin: t.pin };
  if (!urlChanged && !attempt.ok) return { kind: 'rejected', pin: t.pin, error: attempt.error };
  return s.db.tx(async (q) => {
    if (!(await stillProvider(q, t.id, t.provider))) return { kind: 'stale' } as const;
    let version = 0;
    if (urlChanged) version = await setUpstream(q, t.id, url);
    const pin = attempt.ok ? attempt.pin : null;
    if (!samePin(t.pin, pin)) version = await writePin(q, t.id, pin);
    if (!attempt.ok) return { kind: 'rejected', pin, error: attempt.error, version: version || undefined } as const;
    return { kind: 'updated', pin, version } as const;
  });
}

async function stillProvider(q: Queryable, id: string, provider: ProviderId): Promise<boolean> {
  const rows = await q.query('SELECT 1 FROM llm_proxies WHERE id = $1 AND provider = $2 FOR UPDATE', [id, provider]);
  return rows.length > 0;
}

export async function writePin(q: Queryable, id: string, pin: Pin | null): Promise<number> {
  await q.query('UPDATE llm_proxies SET pin = $2::jsonb WHERE id = $1', [id, pin ? JSON.stringify(pin) : null]);
  return bumpConfigVersion(q);
}
