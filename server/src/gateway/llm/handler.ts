// The LLM data plane (issue 4). Per request, in order:
//   route (server.ts) → the gate from the headers alone (ban, ip_acl, authenticate with Bearer or the provider's
//   native header) → the provider's route table (routes.ts) → only then read the body, find the model → authorize
//   models, rules in array order → budget admission → upstream call with the stored provider key → response streamed to the client chunk by chunk while
//   the accounting tap reads it → log phase (accounting.ts), after the client has its answer.
// Nothing here queries PostgreSQL: config comes from the snapshot, counters from the state store, and usage rows,
// budget charges and conversation logs go to the batched AccountingWriter.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { UpstreamResponse } from '../../net/upstream-response.ts';
import type { LlmProxyConfig } from '../../snapshot/snapshot.ts';
import { BudgetLedger, type BudgetHold } from '../../budgets/ledger.ts';
import { readWindowSpend } from '../../budgets/durable.ts';
import { DatastoreUnavailable } from '../../db/db.ts';
import { strictBearerToken } from '../../http/authorization.ts';
import type { GatewayDeps, LlmPlaneDeps } from '../capabilities.ts';
import type { ConfigStore } from '../../snapshot/store.ts';
import { emitFor, newExchange, RuntimeCache, runAccessPhases, runGate, storeCached, type Exchange, type RequestFacts, type Verdict } from '../pipeline/index.ts';
import type { RouteMatch } from '../routing.ts';
import { InFlight, type ProxyHandler } from '../proxy-handler.ts';
import { accountCompleted, liveRecord, releaseHolds, type AccountingDeps, type Aborted } from './accounting.ts';
import { AccountingWriter } from './accounting-writer.ts';
import { LlmMsg, routeRefused } from './authorize.ts';
import { admitBudget } from './budget-gate.ts';
import { LlmCall } from './call.ts';
import { LiveStreams } from './live-streams.ts';
import { StreamRecovery } from './stream-recovery.ts';
import { attachCall } from './exchange.ts';
import { ResponseMeter } from './meter.ts';
import { buildLlmRuntime, type LlmRuntime } from './runtime.ts';
import { filteredModelList } from './model-listing.ts';
import { routeOf, type Route } from './routes.ts';
import { closeUnread, jsonShapeProblem, readBodyOr413, type BodyBudget } from '../upstream/body.ts';
import { callUpstream, pipeBody, timeoutOf } from '../upstream/call.ts';
import { clientResponseHeaders, upstreamRequestHeaders } from '../upstream/headers.ts';
import { sendError, sendJson, sendRuleBody } from '../upstream/reply.ts';
import { providerPool } from './upstream.ts';

interface Deps extends AccountingDeps {
  s: GatewayDeps;
  store: ConfigStore;
  runtimes: RuntimeCache<LlmRuntime>;
  streams: LiveStreams;
  budget: BodyBudget;
}


/** How long a stopping gateway lets LLM requests in flight finish (Kubernetes gives 30 s by default). */
const DRAIN_GRACE_MS = 20_000;
export function createLlmGateway(s: LlmPlaneDeps, store: ConfigStore, budget: BodyBudget): ProxyHandler {
  const pools = providerPool();
  const writer = new AccountingWriter(s.db, s.secrets, s.log);
  const ledger = new BudgetLedger(
    s.state,
    async (llmId, scope, tag) => (await readWindowSpend(s.db, llmId, scope, tag)) + writer.pendingSpend(llmId, scope, tag),
    s.log,
    { onCharge: (c) => writer.addCharge(c) },
  );
  const runtimes = new RuntimeCache<LlmRuntime>((proxy) => {
    s.metrics?.runtimeBuilt('llm');
    return buildLlmRuntime({ s, proxy: proxy as LlmProxyConfig, current: () => store.current }, pools);
  });
  store.onChange((snap) => runtimes.prune(snap));
  const streams = new LiveStreams(s.config.streamCheckpointMs, (rows) => writer.checkpoint(rows));
  const recovery = new StreamRecovery(s.db, ledger, s, s.config.streamOrphanMs);
  recovery.start();
  const d: Deps = { s, store, runtimes, ledger, writer, streams, budget };
  // Requests still running, so flush() can wait for their accounting (it runs after the client has its answer).
  const inFlight = new InFlight();
  return {
    handle(req, res, route) {
      return inFlight.add(handleLlm(d, req, res, route));
    },
    async flush() {
      await inFlight.settled();
      await writer.flush();
    },
    async close() {
      // Requests in flight finish first (their upstream calls need the pools) and account what they used; only then is
      // the writer flushed a last time. Bounded: a stream that outlives the grace period is cut.
      await inFlight.settled(DRAIN_GRACE_MS);
      recovery.close();
      // A stream cut by the grace period keeps its last record: another gateway charges what it delivered.
      streams.close();
      await writer.close();
      await pools.close();
    },
  };
}

function render(res: ServerResponse, v: Exclude<Verdict, { kind: 'continue' }>): void {
  if (v.kind === 'deny') return sendError(res, v.status, v.message, v.headers);
  sendRuleBody(res, v.status, v.body, v.cached ? { ...v.headers, 'x-tollgate-cache': 'hit' } : v.headers);
}

interface Target { pathname: string; query: URLSearchParams | undefined; search: string }

/** Splits `/path?query`, dropping the `key` query parameter (a Gemini client key) from what is forwarded. */
function splitTarget(forwardPath: string): Target {
  const q = forwardPath.indexOf('?');
  const pathname = q < 0 ? forwardPath : forwardPath.slice(0, q);
  if (q < 0) return { pathname, query: undefined, search: '' };
  const query = new URLSearchParams(forwardPath.slice(q + 1));
  if (!query.has('key')) return { pathname, query, search: forwardPath.slice(q) };
  query.delete('key');
  const rest = query.toString();
  return { pathname, query, search: rest ? `?${rest}` : '' };
}

const NO_QUERY = new URLSearchParams();

/** Parses the request into an LlmCall; the provider-native client key is removed from the forwarded query. */
function parseCall(rt: LlmRuntime, target: Target, r: Route, raw: Buffer): { call: LlmCall } {
  return { call: new LlmCall(rt.adapter, r, target, raw) };
}

/** The client's credential: Bearer first, else the provider's native place (read before `key` leaves the query). */
function clientToken(rt: LlmRuntime, req: IncomingMessage, forwardPath: string): string | undefined {
  return strictBearerToken(req.headers) ?? rt.adapter.nativeClientKey(req.headers, nativeQuery(forwardPath) ?? NO_QUERY);
}

function nativeQuery(forwardPath: string): URLSearchParams | undefined {
  const q = forwardPath.indexOf('?');
  return q < 0 ? undefined : new URLSearchParams(forwardPath.slice(q + 1));
}

function factsOf(rt: LlmRuntime, call: LlmCall, raw: Buffer): RequestFacts {
  const facts: RequestFacts = { method: call.label, tools: [], model: call.requestedModel };
  if (rt.needsBody) facts.body = raw.toString('utf8');
  if (rt.caches && call.endpoint && call.json && !call.stream) facts.cache = { tool: `llm:${call.endpoint.kind}`, payload: `${call.pathname}\n${raw.toString('utf8')}` };
  return facts;
}

async function handleLlm(d: Deps, req: IncomingMessage, res: ServerResponse, route: RouteMatch): Promise<void> {
  const proxy = route.proxy;
  if (proxy.kind !== 'llm') return sendError(res, 500, 'Internal error');
  const startMs = d.s.clock.nowMs();
  const rt = d.runtimes.get(proxy);
  // Bans, address rules and the credential need only the headers: whoever is refused there costs no body read.
  const x = newExchange(rt.pipeline, req, { method: `http:${req.method}`, tools: [] }, clientToken(rt, req, route.forwardPath));
  const gate = await runGate(rt.pipeline, x);
  if (gate.kind !== 'continue') {
    closeUnread(req, res);
    render(res, gate);
    emitFor(x, gate.event);
    return;
  }
  // The path as sent, never resolved: routes.ts refuses what the provider could read as another path. A path the proxy
  // does not serve is refused before its body is read, too.
  const target = splitTarget(route.forwardPath);
  const r = routeOf(rt.adapter, req.method ?? 'GET', target.pathname);
  if (r.use === 'refused') {
    const v = routeRefused(r);
    closeUnread(req, res);
    render(res, v);
    emitFor(x, v.event);
    return;
  }
  const raw = await readBodyOr413(req, res, proxy.limits.llmMaxReqBodyKb * 1024, d.budget);
  if (typeof raw === 'string') return emitFor(x, { type: 'deny', details: { reason: raw } });
  const shape = jsonShapeProblem(raw);
  if (shape) {
    sendError(res, 400, `Invalid JSON body: ${shape}`);
    emitFor(x, { type: 'deny', details: { reason: 'json_shape' } });
    return;
  }
  const { call } = parseCall(rt, target, r, raw);
  x.facts = factsOf(rt, call, raw);
  attachCall(x, call);
  let hold: BudgetHold | undefined;
  let budgetHeaders: Record<string, string> = {};
  try {
    let v = await runAccessPhases(rt.pipeline, x, rt.authorize);
    if (v.kind === 'continue') {
      const gate = await admitBudget(d.ledger, x, call, startMs);
      ({ verdict: v, hold, headers: budgetHeaders } = gate);
    }
    if (v.kind !== 'continue') {
      await releaseHolds(d, call, hold);
      render(res, v);
      emitFor(x, v.event);
      return;
    }
  } catch (err) {
    await releaseHolds(d, call, hold).catch(() => undefined);
    return failBeforeUpstream(d, x, res, err);
  }
  await forward(d, rt, { x, res, call, hold, extraHeaders: budgetHeaders, startMs });
}

function failBeforeUpstream(d: Deps, x: Exchange, res: ServerResponse, err: unknown): void {
  const unavailable = err instanceof DatastoreUnavailable;
  d.s.log.warn('LLM request failed before the upstream call', { err, proxy: x.proxy.id });
  sendError(res, unavailable ? 503 : 500, unavailable ? 'Service unavailable: the datastore is not reachable' : 'Internal error');
  emitFor(x, { type: 'error', details: { reason: unavailable ? 'datastore_unavailable' : 'internal' } });
}

/**
 * Streams the upstream body to the client chunk by chunk (with backpressure); the accounting tap reads each chunk
 * after it was written, so it never delays the client. Resolves with who, if anyone, broke off.
 */
async function relay(up: UpstreamResponse, res: ServerResponse, meter: ResponseMeter | undefined): Promise<Aborted> {
  try {
    if (await pipeBody(up, res, meter)) return 'client_gone';
  } catch (err) {
    // The client's connection is cut too: a stream that just ended would look complete to it.
    res.destroy();
    return (err as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT' ? 'upstream_timeout' : 'upstream_broken';
  }
  res.end();
  return false;
}

interface Forwarding {
  x: Exchange;
  res: ServerResponse;
  call: LlmCall;
  hold: BudgetHold | undefined;
  /** Budget headers (soft overruns) added to the client's response. */
  extraHeaders: Record<string, string>;
  startMs: number;
}

/** Calls the provider and streams its answer to the client; accounting runs after the client has it. */
async function forward(d: Deps, rt: LlmRuntime, f: Forwarding): Promise<void> {
  const up = await sendUpstream(d, rt, f);
  if (!up) return;
  if (f.call.route.use === 'list_models' && up.statusCode === 200) return answerModelList(d, rt, f, up);
  await relayAnswer(d, rt, f, up);
}

/** The provider's response, or undefined once the client has been told why there is none. */
async function sendUpstream(d: Deps, rt: LlmRuntime, f: Forwarding): Promise<UpstreamResponse | undefined> {
  const { x, call } = f;
  const proxy = x.proxy as LlmProxyConfig;
  if (!proxy.providerKey) return void await upstreamFailed(d, f, NO_PROVIDER_KEY);
  const target = rt.target;
  if (!target) return void await upstreamFailed(d, f, NOT_PINNED);
  call.prepareForUpstream();
  try {
    return await callUpstream(x, target.dispatcher, {
      origin: target.origin,
      path: target.basePath + call.pathname + call.search,
      method: (x.req.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: upstreamRequestHeaders(x.req.headers, rt.adapter.authHeader(proxy.providerKey)),
      body: x.req.method === 'GET' || x.req.method === 'HEAD' ? undefined : call.body(),
      headersTimeout: d.s.config.llmUpstreamTimeoutMs,
      bodyTimeout: d.s.config.llmUpstreamTimeoutMs,
    }, f.res);
  } catch (err) {
    // Only a provider that took the request and did not answer timed out; one that could not be reached in time
    // (connect timeout) is unreachable, as any other failure.
    const timeout = timeoutOf(err) === 'headers';
    d.s.log.warn('LLM upstream call failed', { err, proxy: proxy.id });
    return void await upstreamFailed(d, f, timeout ? UPSTREAM_TIMEOUT : UPSTREAM_UNREACHABLE);
  }
}

/** Relays a provider's answer (not a model listing) to the client, then caches and accounts for it. */
async function relayAnswer(d: Deps, rt: LlmRuntime, f: Forwarding, up: UpstreamResponse): Promise<void> {
  const { x, res, call } = f;
  const isSse = /^text\/event-stream/i.test(String(up.headers['content-type'] ?? ''));
  const meter = meterFor(rt, f, isSse);
  let aborted: Aborted = 'client_gone';
  // A stream's progress is recorded while it runs, so that what was delivered is charged if this process dies.
  const live = isSse && meter && call.accounted ? d.streams.begin(liveRecord(f, meter, up.statusCode)) : undefined;
  if (!res.destroyed) {
    res.writeHead(up.statusCode, Object.assign(clientResponseHeaders(up.headers, false), f.extraHeaders));
    // A stream's client sees the answer start at once (and can tell a slow first token from a dead gateway). When
    // the first chunk came with the headers, writing it sends them in the same packet, at once too.
    if (isSse && !up.buffered) res.flushHeaders();
    aborted = await relay(up, res, meter);
  }
  const metered = meter?.finish(up.statusCode);
  const cacheable = jsonToCache(x, metered, up.statusCode);
  if (cacheable !== undefined) await storeCached(x, cacheable);
  await accountCompleted(d, { x, call, hold: f.hold, completionHooks: rt.completionHooks, live }, { status: up.statusCode, metered, aborted, startMs: f.startMs });
}

function meterFor(rt: LlmRuntime, f: Forwarding, isSse: boolean): ResponseMeter | undefined {
  const endpoint = f.call.endpoint;
  if (!endpoint) return undefined;
  return new ResponseMeter(rt.adapter, endpoint, (f.x.proxy as LlmProxyConfig).limits.llmMaxRespBodyKb * 1024, { sse: isSse, text: rt.wantsText });
}

/** The answer's JSON text when the cache rule is to store it. */
function jsonToCache(x: Exchange, metered: ReturnType<ResponseMeter['finish']> | undefined, status: number): string | undefined {
  return metered?.jsonText !== undefined && status === 200 && x.cacheSlot ? metered.jsonText : undefined;
}

/** A model listing answers with the models this caller may use (model-listing.ts); nothing is charged. */
async function answerModelList(d: Deps, rt: LlmRuntime, f: Forwarding, up: UpstreamResponse): Promise<void> {
  const proxy = f.x.proxy as LlmProxyConfig;
  const listed = await filteredModelList(up, rt.adapter, rt.models.visibleTo(f.x.identity), proxy.limits.llmMaxRespBodyKb * 1024);
  const gone = f.res.destroyed;
  if (listed === undefined && !gone) return upstreamFailed(d, f, INVALID_MODEL_LIST);
  if (listed !== undefined) sendJson(f.res, up.statusCode, listed, Object.assign(clientResponseHeaders(up.headers, true), f.extraHeaders));
  const done = { x: f.x, call: f.call, hold: f.hold, completionHooks: rt.completionHooks, live: undefined };
  await accountCompleted(d, done, { status: up.statusCode, metered: undefined, aborted: gone ? 'client_gone' : false, startMs: f.startMs });
}

interface UpstreamFailure {
  status: number;
  message: string;
  reason: string;
}

// Shared constants, so that failing a request allocates nothing beyond its answer.
const NO_PROVIDER_KEY: UpstreamFailure = { status: 502, message: LlmMsg.noProviderKey, reason: 'no_provider_key' };
const NOT_PINNED: UpstreamFailure = { status: 502, message: LlmMsg.notPinned, reason: 'upstream_not_pinned' };
const UPSTREAM_TIMEOUT: UpstreamFailure = { status: 504, message: LlmMsg.upstreamTimeout, reason: 'upstream_timeout' };
const UPSTREAM_UNREACHABLE: UpstreamFailure = { status: 502, message: LlmMsg.upstreamUnreachable, reason: 'upstream_unreachable' };
const INVALID_MODEL_LIST: UpstreamFailure = { status: 502, message: LlmMsg.invalidModelList, reason: 'upstream_invalid_response' };

async function upstreamFailed(d: Deps, f: Forwarding, { status, message, reason }: UpstreamFailure): Promise<void> {
  await releaseHolds(d, f.call, f.hold).catch(() => undefined);
  sendError(f.res, status, message);
  emitFor(f.x, { type: 'error', details: { reason, status } });
}
