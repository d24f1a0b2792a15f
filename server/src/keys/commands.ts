// The three writes on client keys. Each runs in one transaction that also bumps the config version, and announces
// the version after commit, so the gateway serves the new tag set the moment the call returns.
import type { AuthContext } from '../http/auth-context.ts';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import { DatastoreUnavailable, type Queryable } from '../db/db.ts';
import { HttpError, Msg } from '../http/errors.ts';
import { assertApiKeyQuota } from '../quota/quota.ts';
import { unixNow, type Services } from '../services.ts';
import { resolveGrants } from './grants.ts';
import { parseUpdateKeyBody } from './body.ts';
import { type CreateKeyBody, type PermissionInput } from '@tollgate/contract';
import { deleteClientKey, findOwnCredential, insertClientKey, replaceKeyTags } from './store.ts';
import { NAME_TAG_PREFIX, buildKeyTags, findNameTag, nameTag } from '@tollgate/contract';
import { checkCustomTags } from './body.ts';
import { toKeyRecord, type KeyRecord, type KeyRow } from './view.ts';

export interface CreatedKey {
  id: string;
  /** The plaintext, returned once and never stored. */
  key: string;
  tags: string[];
}

/**
 * Runs a key write and publishes it. Deliberate failures (HttpError) and datastore outages keep their own status;
 * anything else becomes the spec's 500 message for that operation, with the detail only in the log. A failure to
 * confirm the new version with the gateway after commit is logged, not returned: the change is stored, and the
 * gateways' version poll picks it up.
 */
async function writeAndPublish<R>(s: Services, failMessage: string, fn: (q: Queryable) => Promise<R>): Promise<R> {
  let out: { result: R; version: number };
  try {
    out = await s.db.tx(async (q) => ({ result: await fn(q), version: await bumpConfigVersion(q) }));
  } catch (err) {
    if (err instanceof HttpError || err instanceof DatastoreUnavailable) throw err;
    s.log.error('client key write failed', { err });
    throw new HttpError(500, failMessage);
  }
  try {
    await s.configChanged(out.version);
  } catch (err) {
    s.log.warn('gateway did not confirm a client key change yet; it will catch up on its next version poll', { err, version: out.version });
  }
  return out.result;
}

async function computeTags(q: Queryable, userId: string, nameTagValue: string, input: PermissionInput): Promise<string[]> {
  checkCustomTags(input.customTags);
  const grants = await resolveGrants(q, userId, input);
  return buildKeyTags(nameTagValue, grants.mcp, grants.llm, input.customTags);
}

export function createKey(s: Services, auth: AuthContext, body: CreateKeyBody): Promise<CreatedKey> {
  return writeAndPublish(s, Msg.createKeyFailed, async (q) => {
    const tags = await computeTags(q, auth.userId, nameTag(body.name), body);
    await assertApiKeyQuota(q, auth.consumerId);
    const { id, key } = await insertClientKey(q, auth.consumerId, tags, unixNow(s.clock));
    return { id, key, tags };
  });
}

/** The caller's key, or the spec's refusals: 404 for anything not theirs, 403 for the PAT. */
async function requireOwnClientKey(q: Queryable, auth: AuthContext, id: string, lock: boolean): Promise<KeyRow> {
  const row = await findOwnCredential(q, auth.consumerId, id, lock);
  if (!row) throw new HttpError(404, Msg.keyNotFound);
  if (row.is_pat) throw new HttpError(403, Msg.cannotModifyPat);
  return row;
}

/**
 * PATCH: replaces the whole tag set, keeping the stored name tag. The body (already parsed JSON, read before the
 * transaction so a slow client never holds it) is validated only once the key is known to be the caller's, so a
 * body error never tells anything about another user's key.
 *
 * Lock order is proxy rows first (share-locked by the grant checks), then the key row: the same order as a proxy
 * delete (proxy row, then the keys whose tags it strips), so the two never deadlock.
 */
export function updateKey(s: Services, auth: AuthContext, id: string, rawBody: unknown): Promise<KeyRecord> {
  return writeAndPublish(s, Msg.updatePermissionsFailed, async (q) => {
    const row = await requireOwnClientKey(q, auth, id, false);
    const keep = findNameTag(row.tags);
    if (!keep) throw new HttpError(409, Msg.missingNameTag);
    const input = parseUpdateKeyBody(rawBody, keep.slice(NAME_TAG_PREFIX.length));
    const tags = await computeTags(q, auth.userId, keep, input);
    // Deleted meanwhile: as not found as any other id. (A name tag never changes, so `keep` is still right.)
    if (!(await findOwnCredential(q, auth.consumerId, row.id, true))) throw new HttpError(404, Msg.keyNotFound);
    await replaceKeyTags(q, row.id, tags);
    return toKeyRecord({ ...row, tags });
  });
}

export function deleteKey(s: Services, auth: AuthContext, id: string): Promise<void> {
  return writeAndPublish(s, 'Failed to delete the key', async (q) => {
    const row = await requireOwnClientKey(q, auth, id, true);
    await deleteClientKey(q, row.id);
  });
}
