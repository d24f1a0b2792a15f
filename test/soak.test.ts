// The soak in CI's time: bench/soak.mjs --smoke for one minute at 40 requests/s through both proxy kinds with every
// rule type on (no errors), then 64 concurrent streams of 10 s, every one complete and none silent for 10 s. The
// flatness of throughput, RSS and descriptors and the 2 s stall bound are judged by the full length only (10 minutes
// at 100 requests/s, 64 streams of 60 s: `npm run soak`; the README has its last figures): one minute is warm-up, and
// CI runs other test files beside this one (a kube-apiserver starting takes a core for seconds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('a short soak through both proxy kinds stays flat and error-free, and 64 concurrent streams never stall', async () => {
  const argv = ['bench/soak.mjs', '--minutes', '1', '--interval-s', '12', '--rate', '40', '--streams', '64', '--stream-seconds', '10', '--stall-ms', '10000', '--smoke'];
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const p = spawn(process.execPath, argv, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    p.on('close', (c) => resolve({ code: c, out }));
  });
  console.log(out.split('\n').map((l) => `# ${l}`).join('\n'));
  assert.equal(code, 0, out);
  assert.match(out, /completed 64\/64/);
  assert.match(out, /soak: PASS/);
});
