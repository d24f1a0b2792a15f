// The access side of the request lifecycle, a closed list of phases in a fixed order:
//
//   1. ban        rate_limit bans, BEFORE authentication (spec: "Bans short-circuit before authentication"), so a
//                 banned client costs one state lookup and learns nothing about its credential;
//   2. network    ip_acl, before authentication too: an address the owner refuses never gets to probe credentials
//                 (ip_acl rules scoped to tools need the body to know the tools, so they run after phase 3);
//   3. authenticate  svc_api_key or jwt (401 on failure), from the headers only.
// Phases 1-3 are the gate (runGate), which kind handlers run BEFORE reading the body: a refused credential costs no
// body read and no parse.
//   4. authorize  the kind's own check (MCP: key tags for tools/resources; LLM: models), after authentication
//                 because it needs the identity;
//   5. access     the remaining rules in array order (rate_limit, lambda access, static_cache lookup, and the kind's
//                 own rule types), after authorization so that rate limits count only requests that could pass.
//                 Reads a later hook will need (the static_cache lookup) are sent when the phase starts, beside the
//                 first hook's command; the hooks still decide in array order (a rate limit refuses a cached call).
//
// The upstream call, the response rules and the log phase belong to the kind handler (their shapes differ).
import type { IncomingMessage } from 'node:http';
import { sha256Hex } from '../../crypto/tokens.ts';
import { strictBearerToken } from '../../http/authorization.ts';
import { clientIp } from '../../http/client-ip.ts';
import type { AuditEvent } from '../../audit/writer.ts';
import { auditEvent, emitEvent } from '../events.ts';
import type { Pipeline } from './build.ts';
import { CONTINUE, type EventSpec, type Exchange, type RequestFacts, type RuleHandler, type Verdict } from './types.ts';

/**
 * Creates the exchange for a request to the proxy `p` was built for (the deps and the proxy come from it).
 * `token` defaults to the Bearer token; LLM providers pass their own header.
 */
export function newExchange(p: Pick<Pipeline, 's' | 'proxy'>, req: IncomingMessage, facts: RequestFacts, token = strictBearerToken(req.headers)): Exchange {
  return {
    s: p.s, proxy: p.proxy, req, facts, token,
    tokenHash: token ? sha256Hex(token) : undefined,
    clientIp: clientIp(req),
    userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : '',
  };
}

export type Authorize = (x: Exchange) => Verdict;

/**
 * The phases that need no body: bans, the network rules that do not depend on the request's tools, and
 * authentication from the headers. Kind handlers run it before they read a body, so a refused credential costs
 * no body read and no parse (a stranger cannot make the gateway buffer and parse megabytes). Idempotent: a second
 * call (runAccessPhases after it) does nothing once it has passed.
 */
export async function runGate<H extends RuleHandler>(p: Pipeline<H>, x: Exchange): Promise<Verdict> {
  if (x.identity) return CONTINUE;
  if (p.banChecks.length) {
    x.principalHint = p.auth.peek(x.token, x.tokenHash);
    for (const h of p.banChecks) {
      const v = await h.checkBan!(x);
      if (v.kind !== 'continue') return v;
    }
  }
  const v1 = await runHooks(p.network, x, 'network', false);
  if (v1.kind !== 'continue') return v1;

  const a = await p.auth.authenticate(x.token, x.tokenHash);
  if (!a.ok) {
    return {
      kind: 'deny', status: a.status, message: a.message, headers: { 'www-authenticate': 'Bearer realm="tollgate"' },
      event: { type: 'deny', details: { reason: a.reason, phase: 'authenticate' } },
    };
  }
  x.identity = a.identity;
  return CONTINUE;
}

/**
 * Runs phases 1-5 (the gate first, unless it already passed). Returns the first verdict that is not `continue`, or
 * `continue` when the request may proceed. Network rules scoped to tools run here, once the body has named them:
 * after authentication, which only reads headers.
 */
export async function runAccessPhases<H extends RuleHandler>(p: Pipeline<H>, x: Exchange, authorize: Authorize): Promise<Verdict> {
  const gate = await runGate(p, x);
  if (gate.kind !== 'continue') return gate;
  const v1 = await runHooks(p.network, x, 'network', true);
  if (v1.kind !== 'continue') return v1;
  const v2 = authorize(x);
  if (v2.kind !== 'continue') return v2;
  for (const h of p.prefetch) if (h.scope.all || h.scope.matches(x.facts.tools)) h.prefetch!(x);
  return runHooks(p.access, x, 'access');
}

/** `needsTools`: run only the hooks that do (true) or do not (false) read the request's tools; undefined: all. */
async function runHooks(list: readonly RuleHandler[], x: Exchange, hook: 'network' | 'access', needsTools?: boolean): Promise<Verdict> {
  for (const h of list) {
    if (needsTools !== undefined && Boolean(h.needsTools) !== needsTools) continue;
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
