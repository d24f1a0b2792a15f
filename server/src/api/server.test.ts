import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../testing/harness.ts';

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

test('unknown path returns 404 Endpoint not found', async () => {
  const r = await t.request('GET', '/api/nope');
  assert.equal(r.status, 404);
  assert.deepEqual(r.body, { error: 'Endpoint not found' });
});

test('health without a credential returns 401 Not authenticated', async () => {
  const r = await t.request('GET', '/api/health');
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { error: 'Not authenticated' });
});

test('health with a PAT reports datastores and gateway up', async () => {
  const u = await t.createUser();
  const r = await t.request('GET', '/api/health', { token: u.pat });
  assert.equal(r.status, 200);
  assert.equal(r.body.overall, 'operational');
  assert.deepEqual(r.body.services.map((s: { name: string }) => s.name).sort(), ['database', 'gateway', t.app.services.state.kind === 'redis' ? 'redis' : 'state'].sort());
});

test('an unknown bearer token returns 401 Invalid personal access token', async () => {
  const r = await t.request('GET', '/api/health', { token: 'svc_pat_nope' });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { error: 'Invalid personal access token' });
});

test('the OpenAPI document is served without a credential and lists the API', async () => {
  const r = await t.request('GET', '/api/openapi.json');
  assert.equal(r.status, 200);
  assert.equal(r.body.openapi, '3.1.0');
  assert.ok(r.body.paths['/api/health'].get);
  assert.ok(r.body.components.schemas.Rule.oneOf || r.body.components.schemas.Rule.anyOf);
});

