// Profile and PAT (spec "Profile and PAT"). The PAT is issued and rotated only from a dashboard session: a PAT
// cannot rotate itself (the route requirement `session` answers 403 to it).
import { HttpError, Msg } from '../../http/errors.ts';
import type { Router } from '../../http/router.ts';
import { getProfile, hasPat, issuePat } from '../../identity/users.ts';
import { unixNow, type Services } from '../../services.ts';

export function registerProfileRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/profile', 'user', async (ctx) => {
    const profile = await getProfile(s.db, ctx.auth.userId);
    // The user was deleted between authentication and this read.
    if (!profile) throw new HttpError(401, Msg.notAuthenticated);
    return profile;
  }, { summary: 'The caller: name, email, consumer and its tags (quotas)' });

  r.add('GET', '/api/profile/token', 'session', async (ctx) => ({ hasToken: await hasPat(s.db, ctx.auth.consumerId) }),
    { summary: 'Whether the user has a personal access token' });

  r.add('POST', '/api/profile/token', 'session', async (ctx) => {
    const now = unixNow(s.clock);
    const { token, rotated, configVersion } = await s.db.tx((q) => issuePat(q, ctx.auth.consumerId, now));
    await s.configChanged(configVersion);
    s.log.info('personal access token issued', { userId: ctx.auth.userId, rotated });
    return { token, rotated };
  }, { summary: 'Issue (or rotate) the personal access token; the plaintext is returned once and the old token stops working at once' });
}
