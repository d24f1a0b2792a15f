// The one exit for errors. An HttpError carries the spec's status and message; an unreachable datastore is a 503;
// anything else is a bug: 500 without detail, logged in full. A response that had already started cannot be
// turned into an error any more, so its connection is cut (the client sees a broken response, not a wrong one).
import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import { DatastoreUnavailable } from '../../db/db.ts';
import { HttpError, Msg } from '../../http/errors.ts';
import { sendJson } from '../../http/json-response.ts';
import type { Services } from '../../services.ts';
import { finishRequest } from './finish.ts';

function respond(err: unknown, req: Request, res: Response, s: Services): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof HttpError) {
    sendJson(res, err.status, { error: err.message }, err.headers);
    return;
  }
  // originalUrl: the target as the client sent it, before request-url.ts canonicalised it for routing.
  if (err instanceof DatastoreUnavailable) {
    s.log.warn('datastore unavailable', { store: err.store, method: req.method, path: req.originalUrl });
    sendJson(res, 503, { error: Msg.datastoreUnavailable });
    return;
  }
  s.log.error('unhandled error in management API', { err, method: req.method, path: req.originalUrl });
  sendJson(res, 500, { error: Msg.internal });
}

export function errorMiddleware(s: Services): ErrorRequestHandler {
  // Four parameters: that is how express tells an error middleware from a plain one.
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    respond(err, req, res, s);
    finishRequest(s, req, res, res.statusCode);
  };
}
