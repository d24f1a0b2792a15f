// Spec: a datastore that is down gives 503 with a message saying so, never a 500 with internals; health reports
// the outage as `degraded`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { freePort } from '@tollgate/testkit/free-port.ts';
import { must, startTestApp } from '@tollgate/testkit/harness.ts';

test('with the database gone, management requests get 503 and a message that says so', async () => {
  const t = await startTestApp();
  try {
    const u = await t.createUser();
    const api = t.client(u.pat);
    must(await api.call('GET /api/profile'));
    await t.app.services.db.close();
    const r = await api.call('GET /api/profile');
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && { status: r.error.status, message: r.error.message, errorField: r.error.body?.errorField },
      { status: 503, message: 'Service unavailable: the datastore is not reachable', errorField: true });
  } finally {
    await t.close().catch(() => undefined);
  }
});

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;

test('with Redis gone, health answers 200 degraded and names redis as down', { skip: hasRedis ? false : 'redis-server is not installed' }, async () => {
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  try {
    await eventually(() => spawnSync('redis-cli', ['-p', String(port), 'ping']).stdout?.toString().includes('PONG'), { what: 'redis-server to answer', timeoutMs: 5000, intervalMs: 100 });
    const t = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    try {
      const u = await t.createUser();
      const api = t.client(u.pat);
      assert.equal(must(await api.call('GET /api/health')).overall, 'operational');
      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
      const after = await api.call('GET /api/health');
      const health = must(after);
      assert.equal(after.ok && after.status, 200);
      assert.equal(health.overall, 'degraded');
      const entry = health.services.find((s) => s.name === 'redis');
      assert.equal(entry?.status, 'down');
      assert.equal(typeof entry?.latencyMs, 'number');
    } finally {
      await t.close().catch(() => undefined);
    }
  } finally {
    if (redis.exitCode === null) redis.kill('SIGKILL');
  }
});
