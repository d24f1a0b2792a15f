import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { createPinnedAgent } from './pinned-dispatcher.ts';

test('the pinned agent connects to the pinned IP and keeps the original Host header', async () => {
  const server = createServer((req, res) => res.end(JSON.stringify({ host: req.headers.host })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const agent = createPinnedAgent({ hostname: 'upstream.example.test', ip: '127.0.0.1', port });
  try {
    const r = await request(`http://upstream.example.test:${port}/x`, { dispatcher: agent });
    assert.deepEqual(await r.body.json(), { host: `upstream.example.test:${port}` });
    await assert.rejects(request(`http://other.example.test:${port}/x`, { dispatcher: agent }), /refused a connection/);
  } finally {
    await agent.close();
    server.close();
  }
});

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

test('TLS through a pin: the SNI is the URL\'s hostname, not the pinned IP, and an untrusted certificate is refused', { skip: hasOpenssl ? false : 'openssl is not installed' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-tls-'));
  try {
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=upstream.tls.test',
      '-addext', 'subjectAltName=DNS:upstream.tls.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]);
    assert.equal(made.status, 0, made.stderr.toString());
    const names: string[] = [];
    let requests = 0;
    const server = createHttpsServer({
      key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')),
      SNICallback: (name, cb) => { names.push(name); cb(null); },
    }, (_, res) => { requests++; res.end('{}'); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const agent = createPinnedAgent({ hostname: 'upstream.tls.test', ip: '127.0.0.1', port });
    const literal = createPinnedAgent({ hostname: '127.0.0.1', ip: '127.0.0.1', port });
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => { warnings.push(w.code ?? w.message); };
    process.on('warning', onWarning);
    try {
      // A self-signed certificate (an interceptor's, or a misconfigured upstream's) fails the handshake.
      await assert.rejects(request(`https://upstream.tls.test:${port}/x`, { dispatcher: agent }), /self[- ]signed|certificate/i);
      assert.deepEqual(names, ['upstream.tls.test']);
      // An IP-literal URL sends no SNI at all (RFC 6066 allows host names only; node warns with DEP0123 otherwise).
      await assert.rejects(request(`https://127.0.0.1:${port}/x`, { dispatcher: literal }), /self[- ]signed|certificate/i);
      assert.deepEqual(names, ['upstream.tls.test']);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings.filter((w) => w === 'DEP0123'), []);
      assert.equal(requests, 0);
    } finally {
      process.off('warning', onWarning);
      await agent.close();
      await literal.close();
      server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
