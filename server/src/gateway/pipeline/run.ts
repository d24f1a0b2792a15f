// The access side of the request lifecycle, a closed list of phases in a fixed order:
//
//   1. ban        rate_limit bans, BEFORE authentication (spec: "Bans short-circuit before authentication"), so a
//                 banned client costs one state lookup and learns nothing about its credential;
//   2. network    ip_acl, before authentication too: an address the owner refuses never gets to probe credentials;
//   3. authenticate  svc_api_key or jwt (401 on failure);
//   4. authorize  the kind's own check (MCP: key tags for tools/resources; LLM: models), after authentication
//                 because it needs the identity;
//   5. access     the remaining rules in array order (rate_limit, lambda access, static_cache lookup, and the kind's
//                 own rule types), after authorization so that rate limits count only requests that could pass.
//
// The upstream call, the response rules and the log phase belong to the kind handler (their shapes differ).
import type { IncomingMessage } from 'node:http';
import type { Snapshot, ProxyConfig } from '../../snapshot/snapshot.ts';
import { sha256Hex } from '../../crypto/tokens.ts';
import { strictBearerToken } from '../../http/authorization.ts';
import { clientIp } from '../../http/client-ip.ts';
import type { Services } from '../../services.ts';
import type { AuditEvent } from '../../audit/writer.ts';
import { auditEvent, emitEvent } from '../events.ts';
import type { Pipeline } from './build.ts';
import type { EventSpec, Exchange, RequestFacts, RuleHandler, Verdict } from './types.ts';

/** Creates the exchange for a request. `token` defaults to the Bearer token; LLM providers pass their own header. */
export function newExchange(
  s: Services, snapshot: Snapshot, proxy: ProxyConfig, req: IncomingMessage, facts: RequestFacts, token = strictBearerToken(req.headers),
): Exchange {
  return {
    s, snapshot, proxy, req, facts, token,
    tokenHash: token ? sha256Hex(token) : undefined,
    clientIp: clientIp(req),
    userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : '',
  };
}

export type Authorize = (x: Exchange) => Verdict;

/** Runs phases 1-5. Returns the first verdict that is not `continue`, or `continue` when the request may proceed. */
export async function runAccessPhases<H extends RuleHandler>(p: Pipeline<H>, x: Exchange, authorize: Authorize): Promise<Verdict> {
  if (p.banChecks.length) {
    x.principalHint = p.auth.peek(x.token, x.tokenHash);
    for (const h of p.banChecks) {
      const v = await h.checkBan!(x);
      if (v.kind !== 'continue') return v;
    }
  }
  const v1 = await runHooks(p.network, x, 'network');
  if (v1.kind !== 'continue') return v1;

  const a = await p.auth.authenticate(x.token, x.tokenHash);
  if (!a.ok) {
    return {
      kind: 'deny', status: a.status, message: a.message, headers: { 'www-authenticate': 'Bearer realm="tollgate"' },
      event: { type: 'deny', details: { reason: a.reason, phase: 'authenticate' } },
    };
  }
  x.identity = a.identity;

  const v2 = authorize(x);
  if (v2.kind !== 'continue') return v2;
  return runHooks(p.access, x, 'access');
}

async function runHooks(list: readonly RuleHandler[], x: Exchange, hook: 'network' | 'access'): Promise<Verdict> {
  for (const h of list) {
    if (!h.scope.all && !h.scope.matches(x.facts.tools)) continue;
    const v = await h[hook]!(x);
    if (v.kind !== 'continue') return v;
  }
  return { kind: 'continue' };
}

const gatewayEvent = (x: Exchange, e: EventSpec) => ({
  type: e.type, clientIp: x.clientIp, ruleName: e.ruleName, details: e.details,
  tool: e.tool ?? x.facts.tools[0], model: x.facts.model,
});

/** Emits an event about this exchange (fills owner, proxy, client ip, tool and model). */
export function emitFor(x: Exchange, e: EventSpec): void {
  emitEvent(x.s, x.proxy, gatewayEvent(x, e));
}

/** The audit row emitFor would write, for a caller that writes it in its own transaction. */
export function auditEventFor(x: Exchange, e: EventSpec): AuditEvent {
  return auditEvent(x.s, x.proxy, gatewayEvent(x, e));
}
