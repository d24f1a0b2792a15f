// The context a route handler receives (http/router.ts RequestContext): built by the first middleware of every route
// and kept in res.locals, where the auth middleware completes it and the exits read it.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { JsonBodyReader } from '../../http/body.ts';
import { clientIp } from '../../http/client-ip.ts';
import { HttpError } from '../../http/errors.ts';
import type { RequestContext } from '../../http/router.ts';

declare global {
  // Express's documented way to type res.locals (its types declare the global Express namespace).
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The request URL as parsed before routing (request-url.ts canonicalPath). */
      url?: URL;
      /** Present once a route matched. */
      ctx?: RequestContext;
    }
  }
}

/** The route table only has `:name` params, which express gives as strings (wildcard arrays never occur). */
function routeParams(params: Request['params']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * The query as a handler reads it. PostgreSQL text cannot hold U+0000, so a parameter with one is refused when the
 * handler first reads the query (after authentication, like the body's NUL check in http/body.ts), instead of failing
 * in the database with a 500 (`GET /api/logs?event_type=%00`).
 */
function checkedQuery(query: URLSearchParams): URLSearchParams {
  for (const [k, v] of query) {
    if (k.includes('\u0000') || v.includes('\u0000')) throw new HttpError(400, `${k.includes('\u0000') ? 'query' : k}: must not contain NUL characters`);
  }
  return query;
}

export function beginRequest(readBody: JsonBodyReader): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const url = res.locals.url;
    if (!url) throw new Error('management API: canonicalPath must run before the routes');
    let body: Promise<unknown> | undefined;
    let query: URLSearchParams | undefined;
    res.locals.ctx = {
      req, res, params: routeParams(req.params), path: url.pathname, clientIp: clientIp(req), auth: undefined,
      get query() { return (query ??= checkedQuery(url.searchParams)); },
      json: () => (body ??= readBody(req, res)),
    };
    next();
  };
}

/** The context of a matched route; its absence means a middleware was mounted out of order (a bug). */
export function contextOf(res: Response): RequestContext {
  const ctx = res.locals.ctx;
  if (!ctx) throw new Error('management API: route middleware ran before beginRequest');
  return ctx;
}
