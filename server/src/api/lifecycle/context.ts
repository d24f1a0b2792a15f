// The context a route handler receives (http/router.ts RequestContext): built by the first middleware of every route
// and kept in res.locals, where the auth middleware completes it and the exits read it.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { JsonBodyReader } from '../../http/body.ts';
import { clientIp } from '../../http/client-ip.ts';
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

export function beginRequest(readBody: JsonBodyReader): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const url = res.locals.url;
    if (!url) throw new Error('management API: canonicalPath must run before the routes');
    let body: Promise<unknown> | undefined;
    res.locals.ctx = {
      req, res, params: routeParams(req.params), query: url.searchParams, path: url.pathname, clientIp: clientIp(req), auth: undefined,
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
