// The last middleware of every route: runs the route module's handler with its context and writes what it returns
// (a Reply, or a plain value as 200 JSON). A rejection goes to the error middleware (express 5 forwards it).
import type { Request, RequestHandler, Response } from 'express';
import { sendJson } from '../../http/json-response.ts';
import { Reply, type Route } from '../../http/router.ts';
import type { Services } from '../../services.ts';
import { issueMessage } from '@tollgate/contract';
import { contextOf } from './context.ts';
import { finishRequest } from './finish.ts';

export function runHandler(route: Route, s: Services): RequestHandler {
  return async (req: Request, res: Response): Promise<void> => {
    const out = await route.handler(contextOf(res));
    let status = res.statusCode;
    if (!res.writableEnded) { // a handler may have answered by itself
      const reply = out instanceof Reply ? out : new Reply(200, out);
      if (s.config.checkResponses) checkResponse(route, reply);
      sendJson(res, reply.status, reply.body, reply.headers);
      status = reply.status;
    }
    finishRequest(s, req, res, status);
  };
}

/** A documented answer that does not match its schema is a bug in the server (or the contract): fail loudly. */
function checkResponse(route: Route, reply: Reply): void {
  if (!route.meta.response || reply.status < 200 || reply.status > 299) return;
  const r = route.meta.response.safeParse(JSON.parse(JSON.stringify(reply.body ?? null)));
  if (!r.success) throw new Error(`${route.method} ${route.pattern} answered outside its response schema: ${issueMessage(r.error.issues)}`);
}
