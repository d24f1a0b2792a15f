// Periodic DNS re-pin (spec "What the service does" 9: about every 60 s). Each MCP server's and LLM proxy's host is
// resolved again; an answer that passes the SSRF guard becomes the new pin (the config version is bumped only when
// the pin changed), an answer that does not is refused: the old pin stays, a warning is logged and the owner gets a
// `pin_rejected` audit event. That refusal is the DNS-rebinding defence for long-lived proxies.
import { createHash } from 'node:crypto';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import { UpstreamRejected, type Pin } from '../net/upstream-guard.ts';
import { refreshLlmPin, samePin } from '../llm-admin/provider-pin.ts';
import { upstreamBaseUrl } from '../llm-admin/registry.ts';
import { type ProviderId } from '@tollgate/contract';
import { unixNow, type Services } from '../services.ts';
import type { Job } from './job.ts';

/** How many hosts are resolved at once. */
const CONCURRENCY = 8;
/** A repeated refusal of the same answer is audited once per this period, not once per run. */
const AUDIT_DEDUP_MS = 60 * 60 * 1000;

type Outcome = { version: number };

interface Target {
  kind: 'mcp' | 'llm';
  id: string;
  userId: string;
  hostname: string | undefined;
}

export const repinJob: Job = {
  name: 'dns-repin',
  intervalMs: (s) => s.config.repinIntervalMs,
  roles: ['api'],
  run: async (s) => { await runRepin(s); },
};

/** One pass over every proxy. Returns the highest config version it wrote (0 when nothing changed). */
export async function runRepin(s: Services): Promise<number> {
  const mcps = await s.db.query<{ id: string; user_id: string; url: string; pin: Pin | null }>('SELECT id, user_id, url, pin FROM mcp_servers');
  const llms = await s.db.query<{ id: string; user_id: string; provider: ProviderId; pin: Pin | null; upstream_url: string | null }>(
    'SELECT p.id, p.user_id, p.provider, p.pin, s.upstream_url FROM llm_proxies p LEFT JOIN gateway_services s ON s.proxy_id = p.id');
  const tasks: Array<() => Promise<Outcome>> = [
    ...mcps.map((m) => () => repinMcp(s, m)),
    ...llms.map((l) => () => repinLlm(s, l)),
  ];
  let version = 0;
  await runLimited(tasks, CONCURRENCY, (o) => { version = Math.max(version, o.version); }, (err) => s.log.warn('repin of one proxy failed', { err }));
  if (version) await s.configChanged(version);
  return version;
}

async function repinMcp(s: Services, m: { id: string; user_id: string; url: string; pin: Pin | null }): Promise<Outcome> {
  let pin: Pin;
  try {
    pin = await s.upstreams.pin(m.url, { prefer: m.pin?.ip });
  } catch (err) {
    if (!(err instanceof UpstreamRejected)) throw err;
    await refused(s, { kind: 'mcp', id: m.id, userId: m.user_id, hostname: hostOf(m.url) }, err, m.pin);
    return { version: 0 };
  }
  if (samePin(m.pin, pin)) return { version: 0 };
  // Only if the URL is still the one that was resolved: a concurrent PATCH of the URL wins.
  const version = await s.db.tx(async (q) => {
    const rows = await q.query('UPDATE mcp_servers SET pin = $2::jsonb WHERE id = $1 AND url = $3 RETURNING id', [m.id, JSON.stringify(pin), m.url]);
    return rows.length ? bumpConfigVersion(q) : 0;
  });
  if (version) s.log.info('DNS pin moved', { mcp: m.id, hostname: pin.hostname, from: m.pin?.ip, to: pin.ip });
  return { version };
}

async function repinLlm(s: Services, l: { id: string; user_id: string; provider: ProviderId; pin: Pin | null; upstream_url: string | null }): Promise<Outcome> {
  const out = await refreshLlmPin(s, { id: l.id, provider: l.provider, upstreamUrl: l.upstream_url, pin: l.pin });
  if (out.kind === 'rejected') {
    await refused(s, { kind: 'llm', id: l.id, userId: l.user_id, hostname: hostOf(upstreamBaseUrl(s.config, l.provider)) }, out.error, out.pin);
    return { version: out.version ?? 0 };
  }
  if (out.kind === 'updated') {
    s.log.info('DNS pin moved', { llm: l.id, hostname: out.pin?.hostname, from: l.pin?.ip, to: out.pin?.ip });
    return { version: out.version };
  }
  return { version: 0 };
}

/** A refused answer keeps the old pin. Hostile answers are audited for the owner; a resolver outage is only logged. */
async function refused(s: Services, t: Target, err: UpstreamRejected, kept: Pin | null): Promise<void> {
  s.log.warn('DNS re-pin refused; keeping the previous pin', { [t.kind]: t.id, reason: err.message, code: err.code, keptIp: kept?.ip });
  if (err.code === 'unresolvable') return;
  const digest = createHash('sha256').update(err.message).digest('hex').slice(0, 16);
  const seen = await s.state.incr(`repin:rejected:${t.id}:${digest}`, 1, AUDIT_DEDUP_MS);
  if (seen.value > 1) return;
  s.audit.write({
    userId: t.userId,
    timestamp: unixNow(s.clock),
    eventType: 'pin_rejected',
    clientIp: '',
    ...(t.kind === 'mcp' ? { mcpUuid: t.id } : { llmUuid: t.id }),
    details: { reason: err.message, hostname: t.hostname ?? null, keptPin: kept },
  });
}

function hostOf(url: string | null): string | undefined {
  try {
    return url ? new URL(url).hostname.replace(/^\[|\]$/g, '') : undefined;
  } catch {
    return undefined;
  }
}

async function runLimited<T>(tasks: Array<() => Promise<T>>, limit: number, onResult: (r: T) => void, onError: (err: unknown) => void): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      try {
        onResult(await task());
      } catch (err) {
        onError(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}
