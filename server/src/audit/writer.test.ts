// The audit writer against the real database (PGlite, or PostgreSQL with DATABASE_URL): text a client controls can
// carry characters PostgreSQL refuses (NUL), and such an event must neither be lost whole nor block the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '@tollgate/testkit/harness.ts';
import type { Db } from '../db/db.ts';
import { AuditWriter, type AuditEvent } from './writer.ts';

test('an event with NUL characters in client-controlled text is stored (NUL replaced) and blocks nothing', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const u = await t.createUser();
    const now = Math.floor(Date.now() / 1000);
    s.audit.write({ userId: u.userId, timestamp: now, eventType: 'deny', clientIp: '127.0.0.1', tool: 'evil\u0000tool', details: { reason: 'tool_not_permitted', method: 'tools/\u0000call', nested: ['a\u0000'] } });
    s.audit.write({ userId: u.userId, timestamp: now, eventType: 'allow', clientIp: '127.0.0.1', tool: 'echo', details: { literal: 'back\\u0000slash' } });
    await s.audit.flush();
    const rows = await s.db.query<{ event_type: string; tool: string; details: Record<string, unknown> }>('SELECT event_type, tool, details FROM audit_events WHERE user_id = $1 ORDER BY id', [u.userId]);
    assert.deepEqual(rows.map((r) => r.event_type), ['deny', 'allow']);
    assert.equal(rows[0]!.tool, 'evil\uFFFDtool');
    assert.deepEqual(rows[0]!.details, { reason: 'tool_not_permitted', method: 'tools/\uFFFDcall', nested: ['a\uFFFD'] });
    assert.deepEqual(rows[1]!.details, { literal: 'back\\u0000slash' }, 'an escaped backslash is not a NUL');
  } finally {
    await t.close();
  }
});

test('an event the database refuses is dropped alone; the rest of its batch is written', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const u = await t.createUser();
    const now = Math.floor(Date.now() / 1000);
    s.audit.write({ userId: u.userId, timestamp: now, eventType: 'allow', clientIp: '', tool: 'first' });
    s.audit.write({ userId: 'not-a-uuid', timestamp: now, eventType: 'allow', clientIp: '', tool: 'refused' });
    s.audit.write({ userId: u.userId, timestamp: now, eventType: 'allow', clientIp: '', tool: 'third' });
    await s.audit.flush();
    const rows = await s.db.query<{ tool: string }>('SELECT tool FROM audit_events WHERE user_id = $1 ORDER BY id', [u.userId]);
    assert.deepEqual(rows.map((r) => r.tool), ['first', 'third']);
    s.audit.write({ userId: u.userId, timestamp: now, eventType: 'allow', clientIp: '', tool: 'later' });
    await s.audit.flush();
    assert.equal((await s.db.query('SELECT 1 FROM audit_events WHERE user_id = $1', [u.userId])).length, 3, 'nothing is stuck');
  } finally {
    await t.close();
  }
});

test('lone UTF-16 surrogates in client-controlled text are stored as U+FFFD, not refused', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const u = await t.createUser();
    const now = Math.floor(Date.now() / 1000);
    s.audit.write({ userId: u.userId, timestamp: now, eventType: 'deny', clientIp: '127.0.0.1', tool: 'half\ud800', details: { method: '\udc00x', pair: '\ud83d\ude00' } });
    s.audit.write({ userId: u.userId, timestamp: now, eventType: 'allow', clientIp: '127.0.0.1' });
    await s.audit.flush();
    const rows = await s.db.query<{ event_type: string; tool: string | null; client_ip: string; details: Record<string, unknown> }>('SELECT event_type, tool, client_ip, details FROM audit_events WHERE user_id = $1 ORDER BY id', [u.userId]);
    assert.deepEqual(rows.map((r) => r.event_type), ['deny', 'allow']);
    assert.equal(rows[0]!.tool, 'half\uFFFD');
    assert.deepEqual(rows[0]!.details, { method: '\uFFFDx', pair: '\ud83d\ude00' }, 'a well-formed pair is kept');
    assert.equal(rows[1]!.tool, null, 'an absent field is NULL');
    assert.deepEqual(rows[1]!.details, {}, 'absent details are an empty object');
  } finally {
    await t.close();
  }
});

/** The real database, calling `hook` with the number of events of each audit statement before it runs. */
function onAuditInsert(db: Db, hook: (events: number) => void): Db {
  return Object.create(db, {
    query: {
      value: async (sql: string, params?: readonly unknown[]) => {
        if (sql.startsWith('INSERT INTO audit_events')) hook((JSON.parse(params![0] as string) as unknown[]).length);
        return db.query(sql, params);
      },
    },
  }) as Db;
}

test('events that arrive while a batch is written go out together at the next flush, not one statement each', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const u = await t.createUser();
    const now = Math.floor(Date.now() / 1000);
    const inserts: number[] = [];
    const event = (tool: string): AuditEvent => ({ userId: u.userId, timestamp: now, eventType: 'allow', clientIp: '', tool });
    // While the first statement is on its way, ten more events arrive.
    const db = onAuditInsert(s.db, (events) => {
      inserts.push(events);
      if (inserts.length === 1) for (let i = 0; i < 10; i++) writer.write(event(`late${i}`));
    });
    const writer = new AuditWriter(db, s.log, 60_000);
    writer.write(event('first'));
    writer.write(event('second'));
    await writer.flush();
    assert.deepEqual(inserts, [2], 'the flush wrote what was buffered when it began');
    await writer.flush();
    assert.deepEqual(inserts, [2, 10], 'what came meanwhile went out as one batch');
    const rows = await s.db.query<{ tool: string }>('SELECT tool FROM audit_events WHERE user_id = $1 ORDER BY id', [u.userId]);
    assert.deepEqual(rows.map((r) => r.tool), ['first', 'second', ...Array.from({ length: 10 }, (_, i) => `late${i}`)]);
    await writer.close();
  } finally {
    await t.close();
  }
});

test('close writes the events recorded while its flush was running', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const u = await t.createUser();
    const now = Math.floor(Date.now() / 1000);
    let late = true;
    const event = (tool: string): AuditEvent => ({ userId: u.userId, timestamp: now, eventType: 'allow', clientIp: '', tool });
    const db = onAuditInsert(s.db, () => {
      if (late) writer.write(event('during the shutdown'));
      late = false;
    });
    const writer = new AuditWriter(db, s.log, 60_000);
    writer.write(event('before'));
    await writer.close();
    const rows = await s.db.query<{ tool: string }>('SELECT tool FROM audit_events WHERE user_id = $1 ORDER BY id', [u.userId]);
    assert.deepEqual(rows.map((r) => r.tool), ['before', 'during the shutdown']);
  } finally {
    await t.close();
  }
});
