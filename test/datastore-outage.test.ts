// Spec: a datastore that is down gives 503 with a message saying so, never a 500 with internals; health reports
// the outage as `degraded`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { eventually } from '../server/src/testing/eventually.ts';
import { freePort } from '../server/src/testing/free-port.ts';
import { startTestApp } from '../server/src/testing/harness.ts';

test('with the database gone, management requests get 503 and a message that says so', async () => {
  const t = await startTestApp();
  try {
    const u = await t.createUser();
    assert.equal((await t.request('GET', '/api/profile', { token: u.pat })).status, 200);
    await t.app.services.db.close();
    const r = await t.request('GET', '/api/profile', { token: u.pat });
    assert.equal(r.status, 503);
    assert.deepEqual(r.body, { error: 'Service unavailable: the datastore is not reachable' });
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
      const before = await t.request('GET', '/api/health', { token: u.pat });
      assert.equal(before.body.overall, 'operational');
      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
      const after = await t.request('GET', '/api/health', { token: u.pat });
      assert.equal(after.status, 200);
      assert.equal(after.body.overall, 'degraded');
      const entry = after.body.services.find((s: { name: string }) => s.name === 'redis');
      assert.equal(entry.status, 'down');
      assert.equal(typeof entry.latencyMs, 'number');
    } finally {
      await t.close().catch(() => undefined);
    }
  } finally {
    if (redis.exitCode === null) redis.kill('SIGKILL');
  }
});
