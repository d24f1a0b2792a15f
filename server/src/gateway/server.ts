// The gateway role: the proxy listener (data plane) and the internal admin listener (status, config version).
import { createServer, type ServerResponse } from 'node:http';
import { listen } from '../http/listen.ts';
import { answerParseErrorsInJson } from '../http/parse-errors.ts';
import { GATEWAY_STOPPING_MESSAGE } from './upstream/pool.ts';
import type { Services } from '../services.ts';
import { ConfigStore } from '../snapshot/store.ts';
import { buildHostCheck } from './host-check.ts';
import { GatewayMetrics, type ProxyKindLabel } from './metrics.ts';
import { resolveRoute } from './routing.ts';
import { createMcpGateway } from './mcp/handler.ts';
import { createLlmGateway } from './llm/handler.ts';
import { BodyBudget } from './upstream/body.ts';
import { sendJson } from './upstream/reply.ts';

/** How long a client may take to send its request headers. */
export const HEADERS_TIMEOUT_MS = 20_000;
/** How long a client may take to send its whole request (a 32 MiB prompt at 1 MB/s fits). */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface GatewayHandle {
  url: string;
  adminUrl: string;
  store: ConfigStore;
  /**
   * Waits for the LLM requests in flight to be accounted, then writes every buffered row: usage, budget charges,
   * conversation logs and audit events. Resolves when they are stored (tests read them right after).
   */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  host: string;
  port: number;
  adminPort: number;
}

/** The proxy kind a response was for, kept on the response for the metrics' `finish` listener. */
const KIND = Symbol('tollgate.proxyKind');
type CountedResponse = ServerResponse & { [KIND]?: ProxyKindLabel };

/**
 * Starts the gateway role. It takes the whole Services because the config store loads snapshots with them; the data
 * planes get only their capabilities (capabilities.ts), which Services has.
 */
export async function startGateway(s: Services, opts: GatewayOptions): Promise<GatewayHandle> {
  const metrics: GatewayMetrics = new GatewayMetrics(() => store.version);
  const store = new ConfigStore(s, (read) => metrics.configReloaded(read));
  await store.start();
  // Before the data planes: the stream recovery reads it once, when the LLM plane starts.
  s.metrics = metrics;
  // One budget for the bodies both data planes hold, so that memory stays bounded whatever mix arrives.
  const bodies = new BodyBudget(s.config.gatewayBodyBudgetMb * 1024 * 1024);
  const mcp = createMcpGateway(s, store, bodies);
  const llm = createLlmGateway(s, store, bodies);
  const started = Date.now();

  const hostAllowed = buildHostCheck({ proxyDomain: s.config.proxyDomain, host: opts.host, publicHosts: s.config.gatewayPublicHosts });
  const refusedHosts = new Set<string>();

  // One listener for every response (no closure and once-wrapper per request); the kind is set once routing found one.
  const countResponse = function (this: CountedResponse): void {
    metrics.response(this[KIND] ?? 'none', this.statusCode);
  };
  let closing = false;
  const proxy = createServer((req, res: CountedResponse) => {
    res.on('finish', countResponse);
    // A stopping gateway takes no new request, also not on a kept-alive connection: the client (or its load balancer)
    // retries on another replica, and no request starts after the handlers' last drain and flush.
    if (closing) {
      req.resume();
      res.setHeader('connection', 'close');
      sendJson(res, 503, { error: GATEWAY_STOPPING_MESSAGE });
      return;
    }
    // DNS-rebinding protection comes before routing: a Host that is none of the gateway's names reaches no proxy.
    if (!hostAllowed(req.headers.host, req.socket.localAddress)) {
      req.resume();
      const host = req.headers.host ?? '';
      if (refusedHosts.size < 100 && !refusedHosts.has(host)) {
        refusedHosts.add(host);
        s.log.warn('gateway refused a request for a host it does not serve (add public names to TOLLGATE_GATEWAY_PUBLIC_HOSTS)', { host });
      }
      sendJson(res, 403, { error: `Host not allowed: ${JSON.stringify(host)} is not a host name of this gateway` });
      return;
    }
    const route = resolveRoute(store.current, req.headers.host, req.url ?? '/');
    if (!route) {
      req.resume();
      sendJson(res, 404, { error: 'Proxy not found' });
      return;
    }
    res[KIND] = route.proxy.kind;
    const h = route.proxy.kind === 'mcp' ? mcp : llm;
    h.handle(req, res, route).catch((err: unknown) => {
      s.log.error('gateway handler failed', { err, proxy: route.proxy.id });
      if (!res.headersSent) sendJson(res, 502, { error: 'Bad gateway' });
      else res.destroy();
    });
  });
  proxy.keepAliveTimeout = 65_000;
  // A client has HEADERS_TIMEOUT_MS for its headers and REQUEST_TIMEOUT_MS for its whole request (408 after), so a
  // slow sender cannot hold a connection and a body reservation open for long. Answers may take as long as they take.
  proxy.headersTimeout = HEADERS_TIMEOUT_MS;
  proxy.requestTimeout = REQUEST_TIMEOUT_MS;
  answerParseErrorsInJson(proxy);

  const admin = createServer((req, res) => {
    req.resume();
    if (req.url === '/metrics') {
      metrics.exposition().then((text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType, 'content-length': Buffer.byteLength(text) });
        res.end(text);
      }, (err: unknown) => {
        s.log.warn('metrics collection failed', { err });
        sendJson(res, 500, { error: 'Internal error' });
      });
    } else if (req.url === '/status') {
      // 200 also when degraded: the chart's liveness and readiness probes share /status, and every old replica sees a
      // newer schema at the same moment, so failing them would restart (into a refused start) or unlist all of them at
      // once while their last good snapshot still serves (docs/architecture.md, "Data-plane schema version").
      sendJson(res, 200, { ...store.health, configVersion: store.version, proxies: store.current.proxies.size, uptimeS: Math.floor((Date.now() - started) / 1000) });
    } else sendJson(res, 404, { error: 'Endpoint not found' });
  });

  const url = await listen(proxy, opts.host, opts.port);
  const adminUrl = await listen(admin, opts.host, opts.adminPort);
  return {
    url, adminUrl, store,
    async flush() {
      await Promise.all([mcp.flush?.(), llm.flush?.()]);
      await s.audit.flush();
    },
    async close() {
      closing = true;
      await store.stop();
      // Stop accepting connections (close() also closes the idle keep-alive ones), let the handlers finish what is in
      // flight and flush, then cut whatever is still open.
      const closed = Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => admin.close(r))]);
      await mcp.close?.();
      await llm.close?.();
      proxy.closeAllConnections();
      admin.closeAllConnections();
      await closed;
    },
  };
}
