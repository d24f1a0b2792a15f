// Second factor (TOTP, RFC 6238) for dashboard sessions: setup -> verify (enables) -> challenge after each sign-in;
// disable with a current code. All session-only: a PAT can never change 2FA. Code checks are limited to 10 attempts
// per 5 minutes per user (spec: `/api/2fa/challenge`; verify and disable get their own counter with the same
// limit, so guessing there is bounded too without eating into the challenge budget), kept in the shared state
// store so replicas agree.
import { codeBodySchema } from '@tollgate/contract';
import type { Queryable } from '../../db/db.ts';
import { HttpError, Msg } from '../../http/errors.ts';
import type { AuthedContext, Router } from '../../http/router.ts';
import { parseOr400 } from '../../http/validate.ts';
import { countAttempt, MFA_CHALLENGE_ATTEMPTS, MFA_MANAGE_ATTEMPTS, type AttemptLimit } from '../../identity/attempts.ts';
import { markSessionMfaPassed } from '../../identity/sessions.ts';
import { acceptCode, beginSetup, disableTwofa, enableTwofa, twofaState, type TwofaState } from '../../identity/twofa.ts';
import { unixNow, type Services } from '../../services.ts';

export const INVALID_CODE = 'Invalid 2FA code';
export const SETUP_NOT_STARTED = '2FA setup has not been started';


interface CodeCheck {
  state: TwofaState;
  code: string;
}

/** Counts the attempt, parses `{code}` and loads the user's 2FA state; the caller decides the order of the other checks. */
async function readCodeRequest(ctx: AuthedContext, s: Services, limit: AttemptLimit): Promise<CodeCheck> {
  await countAttempt(s.state, limit, ctx.auth.userId);
  const { code } = parseOr400(codeBodySchema, await ctx.json());
  const state = await twofaState(s.db, ctx.auth.userId);
  if (!state) throw new HttpError(401, Msg.notAuthenticated);
  return { state, code };
}

/** Checks the code and, when valid, runs `then` in the same transaction as recording the spent time step. */
async function spendCode(ctx: AuthedContext, s: Services, c: CodeCheck, then: (q: Queryable) => Promise<void>): Promise<void> {
  if (!c.state.secretEnc) throw new HttpError(409, SETUP_NOT_STARTED);
  const now = unixNow(s.clock);
  const secretEnc = c.state.secretEnc;
  const ok = await s.db.tx(async (q) => {
    if (!(await acceptCode(q, s.secrets, { userId: ctx.auth.userId, secretEnc, code: c.code, nowS: now }))) return false;
    await then(q);
    return true;
  });
  if (!ok) throw new HttpError(400, INVALID_CODE);
}

export function registerTwofaRoutes(r: Router, s: Services): void {
  r.add('POST', '/api/2fa/setup', 'session', async (ctx) => {
    const state = await twofaState(s.db, ctx.auth.userId);
    if (!state) throw new HttpError(401, Msg.notAuthenticated);
    if (state.enabled) throw new HttpError(409, Msg.twoFaEnabled);
    return beginSetup(s.db, s.secrets, ctx.auth.userId, state.email);
  }, { summary: 'Start 2FA setup: returns a new TOTP secret and its otpauth:// URI (2FA stays off until verified)' });

  r.add('POST', '/api/2fa/verify', 'session', async (ctx) => {
    const c = await readCodeRequest(ctx, s, MFA_MANAGE_ATTEMPTS);
    if (c.state.enabled) throw new HttpError(409, Msg.twoFaEnabled);
    await spendCode(ctx, s, c, async (q) => {
      await enableTwofa(q, ctx.auth.userId);
      // The code just proved the second factor for this session; other sessions must pass the challenge.
      if (ctx.auth.sessionIdHash) await markSessionMfaPassed(q, ctx.auth.sessionIdHash);
    });
    s.log.info('2FA enabled', { userId: ctx.auth.userId });
    return { enabled: true };
  }, { summary: 'Confirm the secret from setup with a current code; enables 2FA' });

  r.add('POST', '/api/2fa/disable', 'session', async (ctx) => {
    const c = await readCodeRequest(ctx, s, MFA_MANAGE_ATTEMPTS);
    if (!c.state.enabled) throw new HttpError(409, Msg.twoFaNotEnabled);
    await spendCode(ctx, s, c, (q) => disableTwofa(q, ctx.auth.userId));
    s.log.info('2FA disabled', { userId: ctx.auth.userId });
    return { enabled: false };
  }, { summary: 'Turn 2FA off with a current code' });

  r.add('POST', '/api/2fa/challenge', 'session-pending-mfa', async (ctx) => {
    const c = await readCodeRequest(ctx, s, MFA_CHALLENGE_ATTEMPTS);
    if (!c.state.enabled) throw new HttpError(409, Msg.twoFaNotEnabled);
    await spendCode(ctx, s, c, async (q) => {
      if (ctx.auth.sessionIdHash) await markSessionMfaPassed(q, ctx.auth.sessionIdHash);
    });
    return { mfaPassed: true };
  }, { summary: 'Complete the second factor of a session after sign-in (10 attempts per 5 minutes per user, then 429)' });
}
