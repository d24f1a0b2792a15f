// 404 `Endpoint not found` for every request no route takes: an unknown path, and a known path with a method it does
// not register (the API has always answered that with 404, not 405). Express alone would answer HEAD with the GET
// route and OPTIONS with an Allow list, so requests in a method no route uses are answered here before routing.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Msg } from '../../http/errors.ts';
import { sendJson } from '../../http/json-response.ts';

export function notFound(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  sendJson(res, 404, { error: Msg.endpointNotFound });
}

export function onlyRoutedMethods(methods: ReadonlySet<string>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (methods.has(req.method)) next();
    else notFound(req, res);
  };
}
