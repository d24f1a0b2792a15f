// The management API's request lifecycle, in one place: match route -> authenticate -> origin check -> handler ->
// JSON reply; every failure goes through handleError. Requests made with a PAT are recorded as audit events.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { authenticatePat, authenticateSession, bearerToken, cookie, SESSION_COOKIE } from '../auth/authenticate.ts';
import type { AuthContext } from '../auth/context.ts';
import { DatastoreUnavailable } from '../db/db.ts';
import { readJson } from '../http/body.ts';
import { HttpError, Msg } from '../http/errors.ts';
import { Reply, type Route, type Router, type RequestContext } from '../http/router.ts';
import { unixNow, type Services } from '../services.ts';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function clientIp(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body ?? null);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(payload);
}

/** Cookie-authenticated unsafe requests must come from our own origin (or the configured dashboard origin). */
export function checkOrigin(req: IncomingMessage, s: Services): void {
  if (!UNSAFE.has(req.method ?? '')) return;
  const origin = req.headers.origin;
  if (!origin) return; // non-browser client: SameSite=Strict already keeps cross-site browsers from sending the cookie
  const allowed = new Set<string>();
  if (s.config.dashboardOrigin) allowed.add(new URL(s.config.dashboardOrigin).origin);
  if (req.headers.host) {
    allowed.add(`http://${req.headers.host}`);
    allowed.add(`https://${req.headers.host}`);
  }
  if (!allowed.has(origin)) throw new HttpError(403, 'Cross-origin request rejected');
}

async function authenticate(route: Route, req: IncomingMessage, s: Services, ctx?: RequestContext): Promise<AuthContext | undefined> {
  const bearer = bearerToken(req);
  if (bearer !== undefined) {
    if (route.auth === 'public') return undefined;
    const auth = await authenticatePat(s.db, bearer);
    if (route.auth === 'session' || route.auth === 'session-pending-mfa') {
      if (ctx) ctx.auth = auth; // so the refused PAT request is recorded too (spec: every PAT request is logged)
      throw new HttpError(403, Msg.sessionOnly);
    }
    return auth;
  }
  const sid = cookie(req, SESSION_COOKIE);
  const auth = sid ? await authenticateSession(s.db, sid, unixNow(s.clock)) : undefined;
  if (route.auth === 'public') return auth;
  if (!auth) throw new HttpError(401, Msg.notAuthenticated);
  checkOrigin(req, s);
  if (!auth.mfaPassed && route.auth !== 'session-pending-mfa') throw new HttpError(401, Msg.mfaRequired);
  return auth;
}

export function handleError(err: unknown, res: ServerResponse, s: Services, req: IncomingMessage): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof HttpError) {
    sendJson(res, err.status, { error: err.message }, err.headers);
    return;
  }
  if (err instanceof DatastoreUnavailable) {
    s.log.warn('datastore unavailable', { store: err.store, method: req.method, path: req.url });
    sendJson(res, 503, { error: Msg.datastoreUnavailable });
    return;
  }
  s.log.error('unhandled error in management API', { err, method: req.method, path: req.url });
  sendJson(res, 500, { error: Msg.internal });
}

function recordPatRequest(s: Services, ctx: RequestContext, status: number): void {
  if (ctx.auth?.channel !== 'pat') return;
  s.audit.write({
    userId: ctx.auth.userId,
    timestamp: unixNow(s.clock),
    eventType: 'api_request',
    clientIp: ctx.clientIp,
    details: { method: ctx.req.method, path: ctx.path, status, credential_id: ctx.auth.credentialId, email: ctx.auth.email },
  });
}

export function createApiHandler(router: Router, s: Services) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://api.invalid');
    const match = router.match(req.method ?? 'GET', url.pathname);
    if (!match) {
      req.resume();
      sendJson(res, 404, { error: Msg.endpointNotFound });
      return;
    }
    let parsed: Promise<unknown> | undefined;
    const ctx: RequestContext = {
      req, res, params: match.params, query: url.searchParams, path: url.pathname, clientIp: clientIp(req), auth: undefined,
      json: () => (parsed ??= readJson(req)),
    };
    let status = 500;
    try {
      ctx.auth = await authenticate(match.route, req, s, ctx);
      const out = await match.route.handler(ctx);
      if (!res.writableEnded) {
        const reply = out instanceof Reply ? out : new Reply(200, out);
        status = reply.status;
        sendJson(res, reply.status, reply.body, reply.headers);
      } else status = res.statusCode;
    } catch (err) {
      handleError(err, res, s, req);
      status = res.statusCode;
    } finally {
      if (!parsed) req.resume();
      recordPatRequest(s, ctx, status);
    }
  };
}

export function createApiServer(router: Router, s: Services): Server {
  const server = createServer(createApiHandler(router, s));
  server.keepAliveTimeout = 5000;
  return server;
}
