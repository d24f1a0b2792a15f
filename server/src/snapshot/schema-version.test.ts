// The data-plane schema version between an API and its gateways: equal versions serve as always; a gateway that meets
// a newer version refuses to start, and a running one keeps its last good snapshot and says so on /status and in its
// log at every poll (docs/architecture.md, "Data-plane schema version").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '../log.ts';
import { startGateway } from '../gateway/server.ts';
import { startChildGateway } from '@tollgate/testkit/child-gateway.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { newIsolation, startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { INIT, rawPost } from '@tollgate/testkit/mcp-kit.ts';
import { bumpConfigVersion } from './changes.ts';
import { SNAPSHOT_SCHEMA_VERSION } from './schema-version.ts';

const NEWER = SNAPSHOT_SCHEMA_VERSION + 1;
const setSchema = (t: TestApp, v: number) => t.app.services.db.query('UPDATE data_plane_schema SET version = $1 WHERE id = 1', [v]);
const status = async (adminUrl: string) => (await (await fetch(`${adminUrl}/status`)).json()) as Record<string, unknown>;

function capturingLogger(errors: Array<{ msg: string; fields?: Record<string, unknown> }>): Logger {
  const log: Logger = {
    debug() {}, info() {}, warn() {},
    error(msg, fields) { errors.push({ msg, fields }); },
    child: () => log,
  };
  return log;
}

test('equal versions: the migrations write the version this gateway understands and /status reports up', async () => {
  const t = await startTestApp();
  try {
    const [row] = await t.app.services.db.query<{ version: number }>('SELECT version FROM data_plane_schema WHERE id = 1');
    assert.equal(Number(row!.version), SNAPSHOT_SCHEMA_VERSION);
    const s = await status(t.app.gateway!.adminUrl);
    assert.equal(s.status, 'up');
    assert.equal(s.reason, undefined);
  } finally {
    await t.close();
  }
});

test('a gateway started on a database at a newer data-plane version refuses to start, naming both versions', async () => {
  const t = await startTestApp({ role: 'api' });
  try {
    await setSchema(t, NEWER);
    await assert.rejects(
      startGateway(t.app.services, { host: '127.0.0.1', port: 0, adminPort: 0 }),
      (err: Error) => err.name === 'SnapshotSchemaMismatch'
        && err.message.includes(`database is at data-plane version ${NEWER}, this gateway understands version ${SNAPSHOT_SCHEMA_VERSION}`)
        && err.message.includes("upgrade the gateways to the API's version"),
    );
  } finally {
    await t.close();
  }
});

const shared = !!process.env.DATABASE_URL && !!process.env.REDIS_URL;
test('a `tollgate serve --role gateway` process on a newer data-plane version exits with the message', {
  skip: shared ? false : 'a gateway process needs a shared PostgreSQL and Redis: set DATABASE_URL and REDIS_URL to run this test',
}, async () => {
  const iso = newIsolation();
  const t = await startTestApp({ role: 'api', isolation: iso });
  try {
    await setSchema(t, NEWER);
    await assert.rejects(startChildGateway(iso), (err: Error) => /exited with 1/.test(err.message)
      && err.message.includes(`database is at data-plane version ${NEWER}, this gateway understands version ${SNAPSHOT_SCHEMA_VERSION}`)
      && err.message.includes("upgrade the gateways to the API's version")
      // One line for the operator, not a stack trace.
      && err.message.includes('tollgate: data-plane schema mismatch') && !/\n\s+at /.test(err.message));
  } finally {
    await t.app.services.db.query(`DROP SCHEMA IF EXISTS ${iso.schema} CASCADE`).catch(() => undefined);
    await t.close();
  }
});

test('a running gateway whose database moves to a newer data-plane version keeps serving its last snapshot and reports degraded', async () => {
  const errors: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const t = await startTestApp({ log: capturingLogger(errors), env: { TOLLGATE_CONFIG_POLL_MS: '50' } });
  const up = await startMcpUpstream();
  try {
    const user = await t.createUser();
    const created = await t.request('POST', '/api/mcp', { token: user.pat, body: { name: 'kept', url: up.url } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.server.id as string;
    assert.equal((await t.request('POST', `/api/mcp/${id}/tools`, { token: user.pat })).status, 200);
    const k = await t.request('POST', '/api/keys', { token: user.pat, body: { name: 'k', mcpPermissions: [{ id, tools: ['*'] }] } });
    const h = { authorization: `Bearer ${k.body.key.key as string}` };
    assert.equal((await rawPost(`${t.gateway}/${id}/`, INIT, h)).status, 200);
    const admin = t.app.gateway!.adminUrl;
    const before = (await status(admin)).configVersion as number;

    await setSchema(t, NEWER);
    await bumpConfigVersion(t.app.services.db); // a change the gateway must not build from the newer layout
    const s = await eventually(async () => { const r = await status(admin); return r.status === 'degraded' && r; }, { what: '/status degraded' });
    assert.match(String(s.reason), new RegExp(`data-plane version ${NEWER}, this gateway understands version ${SNAPSHOT_SCHEMA_VERSION}`));
    assert.equal(s.databaseSchemaVersion, NEWER);
    assert.equal(s.gatewaySchemaVersion, SNAPSHOT_SCHEMA_VERSION);
    assert.equal(s.configVersion, before);
    assert.equal(s.proxies, 1);
    assert.equal((await rawPost(`${t.gateway}/${id}/`, INIT, h)).status, 200);
    // An error at every poll, not once.
    await eventually(() => errors.filter((e) => e.fields?.databaseSchemaVersion === NEWER).length >= 2, { what: 'an error logged at each poll' });
    assert.match(String(errors[0]!.fields?.reason), /upgrade the gateways to the API's version/);
  } finally {
    await up.close();
    await t.close();
  }
});
