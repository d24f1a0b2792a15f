// What follows every response of a matched route, whichever exit wrote it (the handler's reply or the error
// middleware): drain a body nobody read, and record a PAT request as an audit event with its final status (spec:
// every PAT request is logged, refused ones included). Recorded right after the response is written, not on 'finish',
// so the event is buffered before the client can act on the answer.
import type { Request, Response } from 'express';
import type { RequestContext } from '../../http/router.ts';
import { unixNow, type Services } from '../../services.ts';

function recordPatRequest(s: Services, ctx: RequestContext, status: number): void {
  if (ctx.auth?.channel !== 'pat') return;
  s.audit.write({
    userId: ctx.auth.userId,
    timestamp: unixNow(s.clock),
    eventType: 'api_request',
    clientIp: ctx.clientIp,
    details: { method: ctx.req.method, path: ctx.path, status, credential_id: ctx.auth.credentialId, email: ctx.auth.email },
  });
}

export function finishRequest(s: Services, req: Request, res: Response, status: number): void {
  req.resume();
  const ctx = res.locals.ctx;
  if (ctx) recordPatRequest(s, ctx, status);
}
