import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
