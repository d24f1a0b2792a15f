import { test } from 'node:test';
import assert from 'node:assert/strict';
import { remoteKeyName, remoteProxyName, uidOfRemoteName } from './identity.ts';

test('the UID round-trips through a remote proxy name, and only an exact suffix counts', () => {
  const uid = '6f1c2a94-1111-4a2b-9c3d-0123456789ab';
  assert.equal(uidOfRemoteName(remoteProxyName('weather', uid)), uid);
  assert.equal(uidOfRemoteName(`weather [k8s:${uid}] copy`), undefined);
  assert.equal(uidOfRemoteName('weather'), undefined);
});

test('key names are derived in the characters the API allows, within 64', () => {
  assert.equal(remoteKeyName('team.a', 'app.v2'), 'k8s-team-a-app-v2');
  assert.equal(remoteKeyName('n', 'x'.repeat(100)).length, 64);
});
