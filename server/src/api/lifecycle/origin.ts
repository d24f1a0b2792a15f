// CSRF defence for the cookie channel: an unsafe request made with the session cookie must come from our own origin
// (or the configured dashboard origin). A PAT request carries no ambient credential, so it is not checked.
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { HttpError } from '../../http/errors.ts';
import type { Services } from '../../services.ts';
import { contextOf } from './context.ts';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Throws 403 for a cross-origin unsafe request. Also used by the sign-in route (login CSRF). */
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

/** Route middleware: the origin check for requests authenticated by a session. */
export function sessionOrigin(s: Services) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (contextOf(res).auth?.channel === 'session') checkOrigin(req, s);
    next();
  };
}
