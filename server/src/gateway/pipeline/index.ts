// The generic gateway pipeline, shared by the MCP and LLM data planes.
//
// HOW A DATA PLANE PLUGS IN (the MCP handler in gateway/mcp/ is the worked example):
//
//   1. Once per config object of a proxy, build a Pipeline:
//        const cache = new RuntimeCache((proxy) => buildPipeline({ s, proxy, current: () => store.current }, builders));
//      `builders` is the kind's entry of RULE_SERVERS (rule-servers.ts), which must name a builder for every rule
//      type the contract makes valid on the kind (a rule type it lacks is denied at run time, never skipped).
//      A builder gets all enabled rules of its type in array order and returns RuleHandlers (types.ts) that hook
//      into the phases `checkBan`, `network` or `access`; kind handlers may extend RuleHandler with their own
//      response-side hooks and call them themselves. Overriding a generic builder is allowed (e.g. rate_limit, to
//      add tokens_per_minute while delegating request counting to buildRateLimit).
//
//   2. Per request, after routing: read what the pipeline needs and make an Exchange:
//        const x = newExchange(pipeline, req, { method, tools: [], model, body }, token?)
//      `token` defaults to `Authorization: Bearer`; pass the value found in a provider-native header instead.
//      Set `facts.cache = { tool, payload }` when the request may be served by static_cache.
//
//   3. const v = await runAccessPhases(pipeline, x, authorize)
//      runs ban → network (ip_acl) → authenticate → authorize (your callback: tags vs model/tool, returns a Verdict)
//      → access rules in array order (rate_limit, lambda access, static_cache lookup, your kind's access rules).
//      You get back one Verdict:
//        continue  → call the upstream; afterwards storeCached(x, body) if x.cacheSlot is set;
//        deny      → render it: status, `{ error: message }`, headers (Retry-After, WWW-Authenticate); emitFor(x, v.event)
//        respond   → answer with v.status/v.body (v.cached: a static_cache hit of what you stored); emitFor(x, v.event)
//      x.identity holds the caller (credential id, tags or JWT claims, rate-limit keys).
//
//   4. Log phase: exactly one outcome event per request via emitFor(x, { type: 'allow' | 'deny' | 'error' | ... }),
//      plus any info events (events.ts lists the types and the chart bucket of each).
//
// Nothing here queries PostgreSQL: the snapshot is in memory and counters, bans and the cache live in the
// state store (capabilities.ts).
export type { Identity } from '../inbound-auth/types.ts';
export type { RequestFacts, Exchange, EventSpec, Verdict, RuleHandler, ToolScope, MaybePromise } from './types.ts';
export { buildPipeline, RuntimeCache, ruleNameOf, type Pipeline, type BuildContext, type RuleEntry, type RuleBuilder, type RuleBuilders, type RuleServers } from './build.ts';
export { newExchange, runGate, runAccessPhases, emitFor, auditEventFor, type Authorize } from './run.ts';
export { toolScope } from './scope.ts';
export { storeCached } from '../rules/static_cache/handler.ts';
