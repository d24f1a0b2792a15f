// A gateway snapshot's content, for tests that compare the snapshot a gateway keeps up to date incrementally with
// the one a full load reads (server/src/snapshot/load.ts).
import assert from 'node:assert/strict';
import { loadSnapshot } from '@tollgate/server/src/snapshot/load.ts';
import type { Snapshot } from '@tollgate/server/src/snapshot/snapshot.ts';
import type { TestApp } from './harness.ts';

/** Every map of a snapshot as entries sorted by key: equal for equal content, whatever order the maps were filled in. */
export function snapshotContent(s: Snapshot): unknown {
  const sorted = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { version: s.version, proxies: sorted(s.proxies), hosts: sorted(s.hosts), paths: sorted(s.paths), credentials: sorted(s.credentialsByHash) };
}

/** Reloads the app's gateway and checks that its snapshot is what a full load of the database reads now. */
export async function reloadAndCompare(t: TestApp): Promise<Snapshot> {
  const store = t.app.gateway!.store;
  await store.reload();
  const full = await loadSnapshot(t.app.services.db, t.app.services.secrets);
  assert.deepEqual(snapshotContent(store.current), snapshotContent(full), 'the gateway\'s snapshot is what a full load reads');
  return store.current;
}
