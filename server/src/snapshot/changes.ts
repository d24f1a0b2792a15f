// Every change the gateway must see bumps config_state.version in the same transaction, then announces the new
// version on the state bus after commit. Gateways reload on the announcement and also poll the version, so a
// missed message (Redis restart, dropped subscription) is repaired within one poll interval.
import type { Queryable } from '../db/db.ts';
import type { State } from '../state/state.ts';

export const CONFIG_CHANNEL = 'config:changed';

export async function bumpConfigVersion(q: Queryable): Promise<number> {
  const [row] = await q.query<{ version: number }>('UPDATE config_state SET version = version + 1 WHERE id = 1 RETURNING version');
  return Number(row!.version);
}

export async function readConfigVersion(q: Queryable): Promise<number> {
  const [row] = await q.query<{ version: number }>('SELECT version FROM config_state WHERE id = 1');
  return Number(row?.version ?? 0);
}

export async function announceConfigVersion(state: State, version: number): Promise<void> {
  await state.publish(CONFIG_CHANNEL, String(version)).catch(() => undefined);
}
