// The gateway objects of a proxy (spec "What the service does" 2): a service, a host route, a path route and a
// plugin instance holding rules and inbound auth. Always written in the caller's transaction, with the proxy row,
// and each change bumps the config version the gateways follow.
import { randomUUID } from 'node:crypto';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import type { InboundAuth } from '../snapshot/snapshot.ts';
import type { Queryable } from '../db/db.ts';
import type { Rule } from '@tollgate/contract';

export type ProxyKind = 'mcp' | 'llm';

export function proxyHost(id: string, proxyDomain: string): string {
  return `${id}.${proxyDomain}`;
}

export async function createGatewayObjects(q: Queryable, p: {
  proxyId: string; kind: ProxyKind; userId: string; upstreamUrl: string; auth: InboundAuth | null; proxyDomain: string; nowS: number;
}): Promise<number> {
  const serviceId = randomUUID();
  await q.query('INSERT INTO gateway_services (id, proxy_id, proxy_kind, user_id, upstream_url, created_at) VALUES ($1,$2,$3,$4,$5,$6)',
    [serviceId, p.proxyId, p.kind, p.userId, p.upstreamUrl, p.nowS]);
  await q.query('INSERT INTO gateway_routes (id, service_id, kind, match) VALUES ($1,$2,$3,$4), ($5,$2,$6,$7)',
    [randomUUID(), serviceId, 'host', proxyHost(p.proxyId, p.proxyDomain), randomUUID(), 'path', `/${p.proxyId}`]);
  await q.query('INSERT INTO gateway_plugins (id, service_id, auth, rules, updated_at) VALUES ($1,$2,$3::jsonb,$4::jsonb,$5)',
    [randomUUID(), serviceId, JSON.stringify(p.auth), '[]', p.nowS]);
  return bumpConfigVersion(q);
}

export async function setUpstream(q: Queryable, proxyId: string, upstreamUrl: string): Promise<number> {
  await q.query('UPDATE gateway_services SET upstream_url = $2 WHERE proxy_id = $1', [proxyId, upstreamUrl]);
  return bumpConfigVersion(q);
}

export async function setPluginAuth(q: Queryable, proxyId: string, auth: InboundAuth | null, nowS: number): Promise<number> {
  await q.query(`UPDATE gateway_plugins SET auth = $2::jsonb, updated_at = $3 WHERE service_id = (SELECT id FROM gateway_services WHERE proxy_id = $1)`,
    [proxyId, JSON.stringify(auth), nowS]);
  return bumpConfigVersion(q);
}

export async function getRules(q: Queryable, proxyId: string): Promise<Rule[]> {
  const rows = await q.query<{ rules: Rule[] }>('SELECT p.rules FROM gateway_plugins p JOIN gateway_services s ON s.id = p.service_id WHERE s.proxy_id = $1', [proxyId]);
  return rows[0]?.rules ?? [];
}

/** Replaces the whole rule array atomically (PUT .../rules). */
export async function setRules(q: Queryable, proxyId: string, rules: Rule[], nowS: number): Promise<number> {
  await q.query(`UPDATE gateway_plugins SET rules = $2::jsonb, updated_at = $3 WHERE service_id = (SELECT id FROM gateway_services WHERE proxy_id = $1)`,
    [proxyId, JSON.stringify(rules), nowS]);
  return bumpConfigVersion(q);
}

/** Removes service, both routes and the plugin (routes and plugin cascade from the service). */
export async function deleteGatewayObjects(q: Queryable, proxyId: string): Promise<number> {
  await q.query('DELETE FROM gateway_services WHERE proxy_id = $1', [proxyId]);
  return bumpConfigVersion(q);
}

/** Strips every `<kind>:<id>:...` tag from every API key (cascade on proxy delete). */
export async function stripProxyTags(q: Queryable, kind: ProxyKind, proxyId: string): Promise<void> {
  const prefix = `${kind}:${proxyId}:`;
  await q.query(
    `UPDATE credentials SET tags = ARRAY(SELECT t FROM unnest(tags) AS t WHERE left(t, length($1)) <> $1)
      WHERE EXISTS (SELECT 1 FROM unnest(tags) AS t WHERE left(t, length($1)) = $1)`,
    [prefix],
  );
}
