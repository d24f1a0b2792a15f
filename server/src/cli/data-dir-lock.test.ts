import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { acquireDataDirLock, DataDirBusy, LOCK_FILE } from './data-dir-lock.ts';

const BIN = new URL('../../bin/tollgate.mjs', import.meta.url).pathname;

test('a second holder of the data-dir lock is refused while the first lives, and may take it after release', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-lock-'));
  try {
    const release = acquireDataDirLock(dir, 'serve');
    assert.throws(() => acquireDataDirLock(dir, 'admin'), (e: unknown) => e instanceof DataDirBusy && /in use by another tollgate server/.test(e.message));
    release();
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);
    acquireDataDirLock(dir, 'admin')();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a process that is gone is taken over', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-lock-'));
  try {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: Number(dead), role: 'serve' }));
    acquireDataDirLock(dir, 'serve')();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a second `tollgate serve` on the same data dir stops at once with a clear message', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-lock-'));
  const env = { ...process.env, DATABASE_URL: '', REDIS_URL: '', TOLLGATE_DATA_DIR: dir, TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0' };
  const first = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let err = '';
    first.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    await eventually(() => err.includes('management API listening'), { what: 'the first server to start', timeoutMs: 60_000 });
    const second = spawnSync(process.execPath, [BIN, 'serve'], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(second.status, 1);
    assert.match(second.stderr, new RegExp(`data dir .* is in use by another tollgate server \\(pid ${first.pid}\\)`));
  } finally {
    first.kill('SIGTERM');
    await new Promise((r) => first.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
});
