// A fresh clone's first start, as the README describes it: `tollgate serve` on an empty embedded data dir prints the
// PAT and a generated password of admin@localhost once; with that password the dashboard signs in and issues a PAT
// that the API accepts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '@tollgate/contract';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { buildDashboard, launchChromium, signInThroughForm } from './kit.ts';

const BIN = fileURLToPath(new URL('../../server/bin/tollgate.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tollgate-first-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the first start prints a PAT and a dashboard password; the dashboard signs in with it and issues a PAT', async () => {
  buildDashboard();
  // Embedded datastores (a first start bootstraps only those), free ports.
  const { DATABASE_URL: _d, REDIS_URL: _r, ...env } = process.env;
  const serve = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...env, TOLLGATE_DATA_DIR: dir, TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let logs = '';
  serve.stdout!.on('data', (d: Buffer) => { out += d; });
  serve.stderr!.on('data', (d: Buffer) => { logs += d; });
  // Launched inside the try: a browser that cannot start must still stop the server, or it outlives the test file.
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    browser = await launchChromium();
    const api = await eventually(() => /"msg":"management API listening"[^\n]*"url":"([^"]+)"/.exec(logs)?.[1], { what: 'the API listening', timeoutMs: 60_000 });
    await eventually(() => /The dashboard:[\s\S]*\n {4}(\S+)\n/.test(out), { what: 'the first-start banner', timeoutMs: 10_000 });
    const bootPat = /\n {4}(svc_pat_\S+)\n/.exec(out)?.[1];
    const password = /The dashboard:[\s\S]*\n {4}(\S+)\n/.exec(out)?.[1];
    assert.ok(bootPat && password, out);
    assert.ok((await new ApiClient({ endpoint: api, token: bootPat }).call('GET /api/profile')).ok, 'the printed PAT works');

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${api}/`);
    await signInThroughForm(page, 'admin@localhost', password);
    await page.getByRole('link', { name: 'Account' }).click();
    // The bootstrap PAT exists, so the page offers a rotation: the new PAT replaces it.
    await page.getByRole('button', { name: /Rotate token/ }).click();
    await page.getByRole('button', { name: /Rotate/ }).last().click();
    const shown = await page.locator('.secret').first().textContent();
    const pat = /svc_pat_\S+/.exec(shown ?? '')?.[0];
    assert.ok(pat, shown ?? '');
    assert.ok((await new ApiClient({ endpoint: api, token: pat }).call('GET /api/profile')).ok, 'the PAT issued in the browser works');
    assert.equal((await new ApiClient({ endpoint: api, token: bootPat }).call('GET /api/profile')).ok, false, 'the printed one is replaced');
  } finally {
    await browser?.close();
    serve.kill('SIGTERM');
    await new Promise((r) => serve.once('exit', r));
  }
});
