// The minimal dashboard session channel: sign in with e-mail and password, sign out, and who am I. Sign-in is the
// one public route under /api/auth/*; like every session-only route it still refuses a PAT with the spec's 403.
import { loginBodySchema } from '@tollgate/contract';
import { bearerTokenOrEmpty } from '../../http/authorization.ts';
import { isSecureRequest } from '../../http/cookies.ts';
import { HttpError, Msg } from '../../http/errors.ts';
import { Reply, type RequestContext, type Router } from '../../http/router.ts';
import { parseOr400 } from '../../http/validate.ts';
import { countAttempt, LOGIN_FAILURES, refundAttempt } from '../../identity/attempts.ts';
import { checkPassword } from '../../identity/login.ts';
import { authenticatePat } from '../../identity/authenticate.ts';
import { clearedSessionCookie, MAX_SESSION_COOKIES, sessionCookie, sessionTokens } from '../../identity/session-cookie.ts';
import { createSession, deleteSession, deleteSessionByToken, sessionTimes } from '../../identity/sessions.ts';
import { twofaState } from '../../identity/twofa.ts';
import { getProfile, normalizeEmail } from '../../identity/users.ts';
import { unixNow, type Services } from '../../services.ts';
import { checkOrigin } from '../server.ts';

export const LOGIN_FAILED = 'Invalid email or password';


/** Sign-in is public, so the lifecycle does not refuse a Bearer there: do it here, as on every /api/auth/* route. */
async function refusePat(ctx: RequestContext, s: Services): Promise<void> {
  const bearer = bearerTokenOrEmpty(ctx.req.headers);
  if (bearer === undefined) return;
  ctx.auth = await authenticatePat(s.db, bearer); // 401 for an unknown token; a known one is recorded as a PAT request
  throw new HttpError(403, Msg.sessionOnly);
}

async function login(ctx: RequestContext, s: Services): Promise<Reply> {
  await refusePat(ctx, s);
  checkOrigin(ctx.req, s); // login CSRF: a foreign page must not sign the browser into another account
  const body = parseOr400(loginBodySchema, await ctx.json());
  const email = normalizeEmail(body.email);
  // Counted before the password is checked, atomically (identity/attempts.ts): at most 10 checks fail per window.
  await countAttempt(s.state, LOGIN_FAILURES, email);
  const user = await checkPassword(s.db, email, body.password);
  if (!user) throw new HttpError(401, LOGIN_FAILED);
  // The window counts failures: a sign-in that succeeded gives its unit back. Losing the refund (state store down
  // since the count) only costs that unit, so it must not fail the sign-in.
  await refundAttempt(s.state, LOGIN_FAILURES, email).catch((err: unknown) => s.log.warn('sign-in attempt not refunded', { err }));
  const now = unixNow(s.clock);
  // A new session id on every sign-in (no fixation); mfa_passed starts false and only a valid code sets it, so a
  // session opened before 2FA was enabled does not skip the challenge afterwards. Every session the request
  // presents is ended (presenting a token proves its possession), a planted duplicate included; as many as a
  // session lookup would consider, so one request cannot ask for hundreds of deletes.
  const previous = sessionTokens(ctx.req).slice(0, MAX_SESSION_COOKIES);
  const session = await s.db.tx(async (q) => {
    for (const token of previous) await deleteSessionByToken(q, token);
    return createSession(q, user.id, false, now);
  });
  s.log.info('dashboard sign-in', { userId: user.id, mfaRequired: user.totpEnabled });
  return new Reply(200, {
    user: { id: user.id, email: user.email, name: user.name },
    mfaRequired: user.totpEnabled,
    expiresAt: session.expiresAt,
  }, { 'set-cookie': sessionCookie(session.token, session.expiresAt - now, isSecureRequest(ctx.req)) });
}

export function registerAuthRoutes(r: Router, s: Services): void {
  r.add('POST', '/api/auth/login', 'public', (ctx) => login(ctx, s),
    { summary: 'Sign in to the dashboard; sets the tollgate_session cookie (mfaRequired: complete /api/2fa/challenge next)' });

  r.add('POST', '/api/auth/logout', 'session-pending-mfa', async (ctx) => {
    if (ctx.auth.sessionIdHash) await deleteSession(s.db, ctx.auth.sessionIdHash);
    return new Reply(200, { loggedOut: true }, { 'set-cookie': clearedSessionCookie(isSecureRequest(ctx.req)) });
  }, { summary: 'Sign out: the session stops working at once' });

  r.add('GET', '/api/auth/session', 'session', async (ctx) => {
    const [profile, twofa, times] = await Promise.all([
      getProfile(s.db, ctx.auth.userId), twofaState(s.db, ctx.auth.userId), sessionTimes(s.db, ctx.auth.sessionIdHash ?? ''),
    ]);
    if (!profile || !twofa || !times) throw new HttpError(401, Msg.notAuthenticated);
    return {
      user: { id: ctx.auth.userId, email: profile.email, name: profile.name },
      twoFactorEnabled: twofa.enabled,
      createdAt: times.createdAt,
      expiresAt: times.expiresAt,
    };
  }, { summary: 'The current dashboard session' });
}
