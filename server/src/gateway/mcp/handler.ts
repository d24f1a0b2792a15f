// The MCP data plane: a transparent Streamable HTTP proxy with policy. POST (JSON-RPC, single or batch, answered as
// JSON or SSE), GET (server stream, with Last-Event-ID) and DELETE (session end) are forwarded to the pinned upstream
// with Mcp-Session-Id / MCP-Protocol-Version passed both ways. Every request runs the generic pipeline (bans,
// ip_acl, authentication, proxy-level authorization, access rules); each POST message is classified (classify.ts)
// and authorized (message-policy.ts: tools/call and resources against the key's tags), synthetic resources and tools
// are answered locally, what goes upstream is the checked messages re-serialised, and the upstream's answer is
// shaped per message (shape.ts) and streamed back (respond.ts). docs/gateway.md describes it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpProxyConfig } from '../../snapshot/snapshot.ts';
import type { GatewayDeps } from '../capabilities.ts';
import type { UpstreamRequest, UpstreamResponse } from '../../net/upstream-response.ts';
import type { ConfigStore } from '../../snapshot/store.ts';
import type { RouteMatch } from '../routing.ts';
import { InFlight, type ProxyHandler } from '../proxy-handler.ts';
import { emitFor, newExchange, runAccessPhases, runGate, RuntimeCache, type Exchange, type RequestFacts, type Verdict } from '../pipeline/index.ts';
import { originAllowed, sendRpc } from './http.ts';
import { isRecord, RpcCode, rpcError, RpcMsg } from './jsonrpc.ts';
import { parseMessages } from './classify.ts';
import { planMessages, refuseMessages } from './message-policy.ts';
import { isEventStream, respondJson, respondStream, type JsonOutcome } from './respond.ts';
import { buildMcpRuntime, type McpRuntime } from './runtime.ts';
import { Shaper } from './shape.ts';
import { closeUnread, jsonShapeProblem, readBodyOr413, type BodyBudget } from '../upstream/body.ts';
import { callUpstream, pipeBody, timeoutOf } from '../upstream/call.ts';
import { clientResponseHeaders, upstreamRequestHeaders } from '../upstream/headers.ts';
import { sendBody, sendError, sendJson, sendRuleBody } from '../upstream/reply.ts';
import { upstreamPath } from './upstream.ts';
import { PinnedPool } from '../upstream/pool.ts';
import { McpMsg } from './messages.ts';
import type { Db } from '../../db/db.ts';
import { discoverTools } from '../../mcp-admin/discovery.ts';
import { PinningMonitor, type FetchCatalog, type PinnedProxy } from './pinning/monitor.ts';
import type { PinningView } from './pinning/policy.ts';
import { ToolChangeRecorder } from './pinning/recorder.ts';

/**
 * What the MCP plane needs beyond the request path's capabilities: tool pinning records the differences it sees
 * (pinning/recorder.ts), off the request path, and announces the config version it bumped.
 */
export interface McpPlaneDeps extends GatewayDeps {
  readonly db: Db;
  configChanged(version: number): Promise<void>;
}

export interface McpGatewayOptions {
  /** Interval of the gateway's own tools/list check of a proxy with tool pinning on (pinning/monitor.ts). */
  pinCheckIntervalMs?: number;
  /** How the gateway lists an upstream's tools itself (tests replace it); the SDK client over the pinned address. */
  fetchCatalog?: FetchCatalog;
}

/** The gateway's own tools/list: the discovery client, through the proxy's pin, with its upstream token. */
const listUpstreamTools: FetchCatalog = async (proxy) => {
  if (!proxy.pin) throw new Error('the upstream address is not resolved');
  return discoverTools({ url: proxy.upstreamUrl, pin: proxy.pin, bearerToken: proxy.upstreamToken });
};

/** What every request of the MCP plane shares, made once per gateway. */
interface McpPlane {
  readonly store: ConfigStore;
  readonly runtimes: RuntimeCache<McpRuntime>;
  /** SSE answers being passed on (so that close() can let them finish answering their waiting requests). */
  readonly open: InFlight;
  readonly budget: BodyBudget;
}

export function createMcpGateway(s: McpPlaneDeps, store: ConfigStore, budget: BodyBudget, o: McpGatewayOptions = {}): ProxyHandler {
  const agents = new PinnedPool();
  const pins: PinningMonitor = new PinningMonitor({
    clock: s.clock, log: s.log, recorder: new ToolChangeRecorder(s),
    fetchCatalog: o.fetchCatalog ?? listUpstreamTools, checkIntervalMs: o.pinCheckIntervalMs,
    current(id): PinnedProxy | undefined {
      const proxy = store.current.proxies.get(id);
      if (proxy?.kind !== 'mcp') return undefined;
      const view: PinningView | undefined = runtimes.get(proxy).pinning?.view;
      return view && { proxy, view };
    },
  });
  const runtimes: RuntimeCache<McpRuntime> = new RuntimeCache<McpRuntime>((proxy): McpRuntime => {
    s.metrics?.runtimeBuilt('mcp');
    return buildMcpRuntime({ s, proxy: proxy as McpProxyConfig, current: () => store.current }, agents, pins);
  });
  store.onChange((snap) => {
    runtimes.prune(snap);
    agents.prune((id) => snap.proxies.has(id));
    pins.prune(snap);
  });
  const plane: McpPlane = { store, runtimes, open: new InFlight(), budget };
  return {
    async handle(req, res, route) {
      if (!originAllowed(req)) {
        closeUnread(req, res);
        const x = newExchange(runtimeOf(plane, route).pipeline, req, { method: `http:${req.method}`, tools: [] });
        emitFor(x, { type: 'deny', details: { reason: 'origin_rejected' } });
        sendError(res, 403, McpMsg.originRejected);
        return;
      }
      switch (req.method) {
        case 'POST': return handlePost(plane, req, res, route);
        case 'GET':
        case 'DELETE': return handleStreamOrDelete(plane, req, res, route);
        default:
          closeUnread(req, res);
          sendError(res, 405, McpMsg.methodNotAllowed, { allow: 'GET, POST, DELETE' });
      }
    },
    async flush() {
      await pins.flush();
    },
    async close() {
      // Open SSE streams would hold a graceful close up indefinitely: they are cut, and given a moment to tell their
      // waiting requests so (and record it) before the last audit flush.
      await agents.destroy();
      await plane.open.settled(2000);
      await pins.flush();
    },
  };
}

/** The routed proxy's runtime, built from the current snapshot (rebuilt lazily after a change). */
function runtimeOf(plane: McpPlane, route: RouteMatch): McpRuntime {
  return plane.runtimes.get(route.proxy);
}

/**
 * Proxy-level authorization: a credential with no permission on this proxy reaches nothing. A call of a tool the
 * credential may not use is not even looked up in the cache (a shared entry would answer it); the per-message check
 * refuses it later.
 */
function authorizeProxy(rt: McpRuntime) {
  return (x: Exchange): Verdict => {
    const perms = rt.permissions(x.identity!);
    if (!perms.proxy) return { kind: 'deny', status: 403, message: McpMsg.noAccess, event: { type: 'deny', details: { reason: 'no_permission_for_proxy' } } };
    if (x.facts.cache && !perms.tool(x.facts.cache.tool)) x.facts.cache = undefined;
    return { kind: 'continue' };
  };
}

/**
 * Tool pinning on an authenticated request: the traffic may start the gateway's own check of the upstream's tools, and
 * a proxy in block mode with differences refuses the request (its denial); undefined when the request goes on.
 */
function pinningGate(rt: McpRuntime): Exclude<Verdict, { kind: 'continue' }> | undefined {
  if (!rt.pinning) return undefined;
  rt.pinning.touch();
  return rt.pinning.blocked();
}

/** Passes an SSE answer on, counted among the open streams while it lasts. */
function relayStream(open: InFlight, ctx: Parameters<typeof respondStream>[0], up: UpstreamResponse): Promise<void> {
  return open.add(respondStream(ctx, up));
}

async function handlePost(plane: McpPlane, req: IncomingMessage, res: ServerResponse, route: RouteMatch): Promise<void> {
  const rt = runtimeOf(plane, route);
  // Bans, address rules and the credential need only the headers: whoever is refused there costs no body read.
  const x = newExchange(rt.pipeline, req, { method: 'http:POST', tools: [] });
  const gate = await runGate(rt.pipeline, x);
  if (gate.kind !== 'continue') {
    closeUnread(req, res);
    return finishVerdict(x, res, gate, NO_MESSAGES);
  }
  const parsed = await readMessages(rt, x, res, plane.budget);
  if (!parsed) return;
  const { batch, items } = parsed;
  x.facts = postFacts(rt, parsed);

  const v = await runAccessPhases(rt.pipeline, x, authorizeProxy(rt));
  if (v.kind !== 'continue') return finishVerdict(x, res, v, parsed);
  const blocked = pinningGate(rt);
  if (blocked) return finishVerdict(x, res, blocked, parsed);

  // Per-message authorization and the answers the gateway gives itself (message-policy.ts).
  const perms = rt.permissions(x.identity!);
  const { forwarded, local, refused } = planMessages(rt, perms, items);
  if (refused.length) return refuseMessages(x, res, parsed, refused);
  if (!forwarded.length) {
    // Only notifications to synthetic tools or resources: accepted, with nothing to answer.
    if (!local.length) return sendBody(res, 202, '', {});
    emitFor(x, { type: 'allow', details: { method: x.facts.method, served_by: 'gateway' } });
    return sendRpc(res, batch, local);
  }

  // The upstream reads exactly what was checked: the parsed messages re-serialised, never the client's bytes (a key
  // written twice in one object reaches it once, with the value the policy read; classify.ts).
  const payload = JSON.stringify(batch ? forwarded.map((f) => f.msg) : forwarded[0]!.msg);
  const up = await forwardUpstream(rt, x, res, upstreamRequest(rt, x, route, payload));
  if (!up) return;
  const ctx = { x, res, shaper: new Shaper(rt, x, perms, forwarded), capBytes: rt.capBytes, batch, forwarded, local };
  return answerPost(ctx, up, items.some((i) => i.id !== undefined), plane.open);
}

type Messages = NonNullable<ReturnType<typeof parseMessages>>;

/** A request stopped before its messages were read (shared: finishVerdict only reads it). */
const NO_MESSAGES: Messages = { batch: false, items: [] };

/**
 * The POST's JSON-RPC messages, read within the owner's request cap and the process's body budget and parsed within
 * the parse limits (../upstream/body.ts); undefined once the client has been answered.
 */
async function readMessages(rt: McpRuntime, x: Exchange, res: ServerResponse, budget: BodyBudget): Promise<Messages | undefined> {
  const raw = await readBodyOr413(x.req, res, rt.proxy.limits.mcpMaxReqBodyKb * 1024, budget);
  if (typeof raw === 'string') return void emitFor(x, { type: 'deny', details: { reason: raw } });
  const shape = jsonShapeProblem(raw);
  if (shape) return void sendJson(res, 400, rpcError(null, RpcCode.invalidRequest, `Invalid Request: ${shape}`));
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return void sendJson(res, 400, rpcError(null, RpcCode.parseError, RpcMsg.parseError));
  }
  const parsed = parseMessages(body);
  if (!parsed) return void sendJson(res, 400, rpcError(null, RpcCode.invalidRequest, RpcMsg.invalidRequest));
  return parsed;
}

/** What the pipeline knows of a POST once its messages are parsed. */
function postFacts(rt: McpRuntime, { batch, items }: Messages): RequestFacts {
  const first = items[0]!;
  return {
    method: batch ? 'batch' : first.method ?? 'response',
    tools: items.flatMap((i) => (i.tool !== undefined ? [i.tool] : [])),
    // A lambda reads the messages as the upstream will (re-serialised), not the client's bytes.
    body: rt.needsBody ? JSON.stringify(batch ? items.map((i) => i.msg) : first.msg) : undefined,
    cache: !batch && first.tool !== undefined && first.id !== undefined && !rt.synthetic.tools.has(first.tool)
      ? { tool: first.tool, payload: JSON.stringify(isRecord(first.msg.params) ? first.msg.params.arguments ?? null : null) }
      : undefined,
  };
}

/** Passes the upstream's answer to a POST on: shaped SSE or JSON, or as it came; one outcome event. */
async function answerPost(ctx: Parameters<typeof respondStream>[0], up: UpstreamResponse, hasRequests: boolean, open: InFlight): Promise<void> {
  const { x, res, batch, local } = ctx;
  const ct = up.headers['content-type'] as string | undefined;
  const started = Date.now();
  if (up.statusCode === 200 && isEventStream(ct)) {
    if (hasRequests) {
      emitFor(x, { type: 'allow', details: { method: x.facts.method, status: 200, stream: true } });
      x.outcomeRecorded = true;
    }
    return relayStream(open, ctx, up);
  }
  if (up.statusCode === 200) {
    const outcome = await respondJson(ctx, up);
    if (hasRequests) emitJsonAllow(x, outcome, started);
    return;
  }
  if (local.length && up.statusCode === 202) {
    // Only notifications went upstream; the client still gets the gateway's own answers.
    up.discard();
    emitFor(x, { type: 'allow', details: { method: x.facts.method, served_by: 'gateway' } });
    return sendRpc(res, batch, local);
  }
  if (hasRequests) emitFor(x, { type: 'allow', details: { method: x.facts.method, status: up.statusCode } });
  return passThrough(x, res, up);
}

/**
 * The outcome event of a JSON answer. Too large and failed answers, and answers a response-phase rule failed, have
 * recorded their error event: one outcome per request.
 */
function emitJsonAllow(x: Exchange, outcome: JsonOutcome, started: number): void {
  if (outcome === 'too_large' || outcome === 'failed' || x.outcomeRecorded) return;
  emitFor(x, { type: 'allow', details: { method: x.facts.method, status: 200, ms: Date.now() - started, cache: x.cacheSlot ? 'miss' : undefined, aborted: outcome === 'client_gone' ? 'client_gone' : undefined } });
}

/** Renders a pipeline verdict that stopped the request, and records its event. */
function finishVerdict(x: Exchange, res: ServerResponse, v: Exclude<Verdict, { kind: 'continue' }>, { batch, items }: Messages): void {
  emitFor(x, v.event);
  if (v.kind === 'respond') {
    const first = items[0];
    if (v.cached && first?.id !== undefined) return sendJson(res, 200, `{"jsonrpc":"2.0","id":${JSON.stringify(first.id)},"result":${v.body}}`, v.headers);
    return sendRuleBody(res, v.status, v.body, v.headers);
  }
  const ids = items.filter((i) => i.id !== undefined);
  if (v.rpcCode !== undefined && ids.length) return sendRpc(res, batch, ids.map((i) => rpcError(i.id, v.rpcCode!, v.message)), v.headers);
  sendError(res, v.status, v.message, v.headers);
}

async function handleStreamOrDelete(plane: McpPlane, req: IncomingMessage, res: ServerResponse, route: RouteMatch): Promise<void> {
  req.resume();
  const rt = runtimeOf(plane, route);
  const x = newExchange(rt.pipeline, req, { method: `http:${req.method}`, tools: [] });
  const v = await runAccessPhases(rt.pipeline, x, authorizeProxy(rt));
  // Ending a session (DELETE) is let through a blocked proxy: it only releases what the upstream holds for it.
  const blocked = req.method === 'GET' ? pinningGate(rt) : undefined;
  if (v.kind !== 'continue' || blocked) {
    closeUnread(req, res);
    return finishVerdict(x, res, v.kind !== 'continue' ? v : blocked!, NO_MESSAGES);
  }
  const up = await forwardUpstream(rt, x, res, upstreamRequest(rt, x, route, undefined));
  if (!up) return;
  if (req.method === 'GET' && up.statusCode === 200 && isEventStream(up.headers['content-type'] as string | undefined)) {
    const shaper = new Shaper(rt, x, rt.permissions(x.identity!), []);
    return relayStream(plane.open, { x, res, shaper, capBytes: rt.capBytes, batch: false, forwarded: [], local: [] }, up);
  }
  return passThrough(x, res, up);
}

/** Why a request cannot go upstream at all (shared constants: refusing allocates nothing beyond the answer). */
interface NotForwarded {
  readonly refused: 'path_rejected' | 'upstream_not_pinned';
  readonly type: 'deny' | 'error';
  readonly status: number;
  readonly message: string;
}

const PATH_REJECTED: NotForwarded = { refused: 'path_rejected', type: 'deny', status: 400, message: McpMsg.pathRejected };
const NOT_PINNED: NotForwarded = { refused: 'upstream_not_pinned', type: 'error', status: 502, message: McpMsg.notPinned };

/** What goes upstream for this exchange (its own method, to the routed path), or why nothing can. */
function upstreamRequest(rt: McpRuntime, x: Exchange, route: RouteMatch, body: string | undefined): UpstreamRequest | NotForwarded {
  const path = upstreamPath(rt.target, route.forwardPath);
  if (path === undefined) return PATH_REJECTED;
  return {
    origin: rt.target.origin,
    path,
    // Only POST, GET and DELETE get here (handle() answers any other method with 405).
    method: x.req.method as 'GET' | 'POST' | 'DELETE',
    headers: upstreamRequestHeaders(x.req.headers, rt.upstreamAuth),
    body,
    // Tools can be slow to start answering; an SSE stream then has no idle limit.
    headersTimeout: x.s.config.mcpUpstreamTimeoutMs,
    bodyTimeout: 0,
  };
}

function notForwarded(x: Exchange, res: ServerResponse, n: NotForwarded): undefined {
  emitFor(x, { type: n.type, details: { reason: n.refused } });
  sendError(res, n.status, n.message);
  return undefined;
}

/** Sends the request upstream; on failure answers the client (400, 502, 504) and returns undefined. */
async function forwardUpstream(rt: McpRuntime, x: Exchange, res: ServerResponse, request: UpstreamRequest | NotForwarded): Promise<UpstreamResponse | undefined> {
  if ('refused' in request) return notForwarded(x, res, request);
  if (!rt.agent) return notForwarded(x, res, NOT_PINNED);
  let up: UpstreamResponse;
  try {
    up = await callUpstream(x, rt.agent, request, res);
  } catch (err) {
    if (res.destroyed) return undefined; // the client went away
    // A connection that cannot be made in time counts as a timeout here too (an LLM proxy calls it unreachable).
    const timeout = timeoutOf(err) !== undefined;
    x.s.log.warn('MCP upstream request failed', { proxy: rt.proxy.id, code: (err as { code?: string }).code, message: (err as Error).message });
    emitFor(x, { type: 'error', details: { reason: timeout ? 'upstream_timeout' : 'upstream_unreachable', code: (err as { code?: string }).code } });
    sendError(res, timeout ? 504 : 502, timeout ? McpMsg.timeout : McpMsg.unreachable);
    return undefined;
  }
  // The client left while the upstream was answering (callUpstream has ended the exchange).
  if (res.destroyed) return undefined;
  return up;
}

/**
 * Non-MCP answers (errors, 202, 404 unknown session...): status, headers and body as the upstream sent them. A body
 * that breaks off cuts the client's connection too, so a truncated answer never looks complete.
 */
async function passThrough(x: Exchange, res: ServerResponse, up: UpstreamResponse): Promise<void> {
  res.writeHead(up.statusCode, clientResponseHeaders(up.headers, true));
  try {
    await pipeBody(up, res);
    res.end();
  } catch {
    emitFor(x, { type: 'stream_error', details: { reason: 'upstream_broken', status: up.statusCode } });
    res.destroy();
  } finally {
    up.destroy();
  }
}
