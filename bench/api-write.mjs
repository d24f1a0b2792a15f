#!/usr/bin/env node
// npm run bench:api-write: how long a management write takes in `npm start` when many tenants share the gateway.
// In one process the API answers a change once its own gateway serves it (docs/architecture.md, "How a change
// reaches every gateway"), so a write's latency includes the gateway's reload. The same `tollgate serve` that
// `npm start` runs is started on a data dir of its own, stopped, given --users tenants (bench/tenants.mjs), and
// started again; then --writes POST /api/keys are timed one after the other (after 5 unmeasured). The baseline is the
// same run with no tenants but the admin user. Options: --users N (default 2000), --writes N (default 20).
/* global performance */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, opt, quantile, root, startEnv, startNodeArgs, tollgateBin } from './common.mjs';
import { insertTenants } from './tenants.mjs';

const USERS = Number(opt('users', '2000'));
const WRITES = Number(opt('writes', '20'));
const dist = `${root}server/dist/`;
const { openPglite } = await import(`${dist}db/pglite.js`);
const { bumpConfigVersion } = await import(`${dist}snapshot/changes.js`);

/** `tollgate serve` as npm start runs it, on `dataDir` and free ports; resolves once both listeners are up. */
function serve(dataDir) {
  const env = { ...process.env, ...startEnv, DATABASE_URL: '', REDIS_URL: '', TOLLGATE_DATA_DIR: dataDir, TOLLGATE_MASTER_KEY: '',
    TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0' };
  const child = spawn(process.execPath, [...startNodeArgs, tollgateBin, 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d;
      const apiUrl = /"msg":"management API listening".*?"url":"([^"]+)"/.exec(out)?.[1];
      if (apiUrl && /"msg":"gateway listening"/.test(out)) resolve({ child, apiUrl, pat: /(svc_pat_[A-Za-z0-9_-]+)/.exec(out)?.[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`tollgate serve exited with ${code}:\n${out}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** Write latencies (ms, sorted) with `tenants` users besides the admin. */
async function measure(tenants) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-api-write-'));
  try {
    const first = await serve(dataDir);
    await stop(first.child);
    const db = await openPglite(join(dataDir, 'pgdata'));
    await insertTenants(db, tenants);
    await db.tx((q) => bumpConfigVersion(q));
    await db.close();
    const { child, apiUrl } = await serve(dataDir);
    try {
      const times = [];
      for (let i = 0; i < WRITES + 5; i++) {
        const t0 = performance.now();
        await api(apiUrl, first.pat, 'POST', '/api/keys', { name: `bench-${i}` });
        if (i >= 5) times.push(performance.now() - t0);
      }
      return times.sort((a, b) => a - b);
    } finally {
      await stop(child);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const row = (label, t) => `| ${label} | ${quantile(t, 0.5).toFixed(1)} ms | ${t[0].toFixed(1)} ms | ${t[t.length - 1].toFixed(1)} ms |`;
const base = await measure(0);
const many = await measure(USERS);
console.log(`POST /api/keys in \`npm start\` (embedded), ${WRITES} writes one after the other`);
console.log('| tenants | median | fastest | slowest |');
console.log('|---|---|---|---|');
console.log(row('the admin user only (baseline)', base));
console.log(row(`${USERS} more`, many));
console.log(`\nmedian with ${USERS} tenants ÷ baseline: ${(quantile(many, 0.5) / quantile(base, 0.5)).toFixed(2)}×`);
