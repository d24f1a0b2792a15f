import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '@tollgate/testkit/harness.ts';
import { auditRetentionJob, purgeExpiredAuditEvents } from './audit-retention.ts';

const D = 86_400;

async function countEvents(t: Awaited<ReturnType<typeof startTestApp>>, userId: string): Promise<number[]> {
  const rows = await t.app.services.db.query<{ ts: number }>('SELECT ts FROM audit_events WHERE user_id = $1 ORDER BY ts', [userId]);
  return rows.map((r) => Number(r.ts));
}

test('retention deletes events older than TOLLGATE_AUDIT_RETENTION_DAYS and keeps newer ones', async () => {
  const t = await startTestApp({ env: { TOLLGATE_AUDIT_RETENTION_DAYS: '7' } });
  try {
    const s = t.app.services;
    assert.equal(s.config.auditRetentionDays, 7);
    const u = await t.createUser();
    const now = Math.floor(Date.now() / 1000);
    const keep = [now - 7 * D + 120, now - D, now];
    for (const ts of [now - 400 * D, now - 7 * D - 120, ...keep]) s.audit.write({ userId: u.userId, eventType: 'allow', timestamp: ts, clientIp: '' });
    await s.audit.flush();
    assert.equal(await purgeExpiredAuditEvents(s), 2);
    assert.deepEqual(await countEvents(t, u.userId), keep);
    assert.equal(await purgeExpiredAuditEvents(s), 0, 'idempotent');
  } finally {
    await t.close();
  }
});

test('retention defaults to 30 days and deletes a backlog larger than one batch', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    assert.equal(s.config.auditRetentionDays, 30);
    const u = await t.createUser();
    const now = Math.floor(Date.now() / 1000);
    await s.db.query(`INSERT INTO audit_events (user_id, ts, event_type) SELECT $1, $2 - g, 'allow' FROM generate_series(1, 12000) AS g`, [u.userId, now - 31 * D]);
    s.audit.write({ userId: u.userId, eventType: 'allow', timestamp: now - 29 * D, clientIp: '' });
    await s.audit.flush();
    await auditRetentionJob.run(s);
    assert.deepEqual(await countEvents(t, u.userId), [now - 29 * D]);
    assert.deepEqual(auditRetentionJob.roles, ['api']);
  } finally {
    await t.close();
  }
});
