// Every change the gateway must see bumps config_state.version in the same transaction, then announces the new
// version on the state bus after commit. Gateways reload on the announcement and also poll the version, so a
// missed message (Redis restart, dropped subscription) is repaired within one poll interval.
//
// Which tenants a version changed is recorded by the database itself (server/src/db/migrations/009_config_changes.sql,
// made per statement by 010): triggers add the owners of every statement's written rows to config_changes unstamped,
// and the bump stamps them with its version.
import type { Queryable } from '../db/db.ts';
import type { State } from '../state/state.ts';

export const CONFIG_CHANNEL = 'config:changed';

/**
 * How many versions of config_changes are kept. A gateway this far behind (or one that just started) loads every
 * tenant; one that follows the announcements is a version or two behind.
 */
export const CHANGES_KEPT = 1000;

/** One statement: the bump, the stamp of the changes it covers, and the pruning of the oldest ones. */
const BUMP = `
  WITH bumped AS (
    UPDATE config_state SET version = version + 1, changes_from = GREATEST(changes_from, version + 1 - ${CHANGES_KEPT})
     WHERE id = 1 RETURNING version
  ), stamped AS (
    UPDATE config_changes SET version = (SELECT version FROM bumped) WHERE version IS NULL
  ), pruned AS (
    DELETE FROM config_changes WHERE version <= (SELECT version FROM bumped) - ${CHANGES_KEPT}
  )
  SELECT version FROM bumped`;

export async function bumpConfigVersion(q: Queryable): Promise<number> {
  const [row] = await q.query<{ version: number }>(BUMP);
  return Number(row!.version);
}

export async function readConfigVersion(q: Queryable): Promise<number> {
  const [row] = await q.query<{ version: number }>('SELECT version FROM config_state WHERE id = 1');
  return Number(row?.version ?? 0);
}

/**
 * The users whose proxies or keys changed after version `since`, up to `upTo`, with the unstamped changes (written
 * after their transaction's bump, or committed without one); `undefined` when the changes since `since` are no longer
 * all kept.
 */
export async function readChangedUsers(q: Queryable, since: number, upTo: number): Promise<string[] | undefined> {
  const [state] = await q.query<{ changes_from: string }>('SELECT changes_from FROM config_state WHERE id = 1');
  if (!state || since < Number(state.changes_from)) return undefined;
  const rows = await q.query<{ user_id: string }>(
    'SELECT DISTINCT user_id FROM config_changes WHERE (version > $1 AND version <= $2) OR version IS NULL', [since, upTo]);
  return rows.map((r) => r.user_id);
}

export async function announceConfigVersion(state: State, version: number): Promise<void> {
  await state.publish(CONFIG_CHANNEL, String(version)).catch(() => undefined);
}
