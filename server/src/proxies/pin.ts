// DNS pins: resolved and checked on create, on URL change, on re-resolve, and every ~60 s by the repin job.
import type { Queryable } from '../db/db.ts';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import { HttpError } from '../http/errors.ts';
import { UpstreamRejected, type Pin, type UpstreamGuard } from '../net/upstream-guard.ts';

/** Resolves and checks an upstream URL for a create or patch; `field` names the input in the 400 message. */
export async function pinOr400(guard: UpstreamGuard, url: string, field: string): Promise<Pin> {
  try {
    return await guard.pin(url);
  } catch (err) {
    if (err instanceof UpstreamRejected) throw new HttpError(400, `${field}: ${err.message}`);
    throw err;
  }
}

export async function storePin(q: Queryable, table: 'mcp_servers' | 'llm_proxies', id: string, pin: Pin | null): Promise<number> {
  await q.query(`UPDATE ${table} SET pin = $2::jsonb WHERE id = $1`, [id, JSON.stringify(pin)]);
  return bumpConfigVersion(q);
}
