// Express matches routes against req.url as it arrived. The API has always matched the WHATWG-parsed path split on
// "/" with empty segments ignored: `/api//mcp/`, `/api/x/../mcp` and `/api\mcp` reach /api/mcp, and a %-escape that
// does not decode stays a literal param (an id that then matches nothing: 404) instead of express's decoding error.
// This middleware, first in the app, rewrites req.url to that canonical form so express matches what we always
// matched. Handlers still get the path as parsed (ctx.path) and the query as URLSearchParams (ctx.query).
import type { NextFunction, Request, Response } from 'express';
import type { RequestListener } from 'node:http';
import { notFound } from './not-found.ts';

/** Only resolves the request target; it is never seen. */
const BASE = 'http://api.invalid';

/**
 * In front of express: a target the URL parser refuses (an absolute-form target with a bad host, `http://[x/`) names
 * no endpoint. Express would answer some of them from its final handler, in HTML, and canonicalPath could not parse
 * the others.
 */
export function parsableTargetsOnly(app: RequestListener): RequestListener {
  return (req, res) => {
    if (URL.canParse(req.url ?? '/', BASE)) app(req, res);
    else notFound(req, res);
  };
}

/** A segment express could not decode is escaped once more, so its decoded param is the segment as sent. */
function decodable(segment: string): string {
  try {
    decodeURIComponent(segment);
    return segment;
  } catch {
    return encodeURIComponent(segment);
  }
}

export function canonicalPath(req: Request, res: Response, next: NextFunction): void {
  const url = new URL(req.url, BASE);
  res.locals.url = url;
  req.url = `/${url.pathname.split('/').filter(Boolean).map(decodable).join('/')}${url.search}`;
  next();
}
