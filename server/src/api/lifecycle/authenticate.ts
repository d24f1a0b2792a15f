// A route's auth requirement (http/router.ts AuthRequirement) as route middleware, chosen once per route at start-up.
// Spec order: a Bearer header wins and cookies are then ignored; on a session-only route a valid PAT gets 403, and
// the identity is kept on the context first so that the refused request is still recorded (every PAT request is);
// a session must pass the origin check before it is told that it still owes its 2FA code.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthContext } from '../../http/auth-context.ts';
import { bearerTokenOrEmpty } from '../../http/authorization.ts';
import { authenticatePat, authenticateSessionTokens } from '../../identity/authenticate.ts';
import { sessionTokens } from '../../identity/session-cookie.ts';
import { HttpError, Msg } from '../../http/errors.ts';
import type { AuthRequirement } from '../../http/router.ts';
import { unixNow, type Services } from '../../services.ts';
import { contextOf } from './context.ts';
import { sessionOrigin } from './origin.ts';

function session(req: Request, s: Services): Promise<AuthContext | undefined> | undefined {
  const tokens = sessionTokens(req);
  return tokens.length ? authenticateSessionTokens(s.db, tokens, unixNow(s.clock)) : undefined;
}

/** A PAT (401 when unknown) or else a live session (401 when none). */
function requireCredential(s: Services) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const ctx = contextOf(res);
    const bearer = bearerTokenOrEmpty(req.headers);
    ctx.auth = bearer !== undefined ? await authenticatePat(s.db, bearer) : await session(req, s);
    if (!ctx.auth) throw new HttpError(401, Msg.notAuthenticated);
    next();
  };
}

/** Public routes: a session is picked up when there is one; a Bearer is the route's business (sign-in refuses it). */
function optionalSession(s: Services) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (bearerTokenOrEmpty(req.headers) === undefined) contextOf(res).auth = await session(req, s);
    next();
  };
}

function refusePat(_req: Request, res: Response, next: NextFunction): void {
  if (contextOf(res).auth?.channel === 'pat') throw new HttpError(403, Msg.sessionOnly);
  next();
}

function requireMfa(_req: Request, res: Response, next: NextFunction): void {
  const auth = contextOf(res).auth;
  if (auth?.channel === 'session' && !auth.mfaPassed) throw new HttpError(401, Msg.mfaRequired);
  next();
}

export function authMiddleware(requirement: AuthRequirement, s: Services): RequestHandler[] {
  switch (requirement) {
    case 'public': return [optionalSession(s)];
    case 'user': return [requireCredential(s), sessionOrigin(s), requireMfa];
    case 'session': return [requireCredential(s), refusePat, sessionOrigin(s), requireMfa];
    case 'session-pending-mfa': return [requireCredential(s), refusePat, sessionOrigin(s)];
  }
}
