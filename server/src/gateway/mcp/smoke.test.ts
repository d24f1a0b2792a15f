import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../testing/harness.ts';
import { startMcpUpstream, type McpUpstream } from './test-upstream.ts';
import { connect, createKey, createProxy } from './test-kit.ts';

let t: TestApp;
let up: McpUpstream;
before(async () => {
  t = await startTestApp();
  up = await startMcpUpstream();
});
after(async () => {
  await up.close();
  await t.close();
});

test('smoke: SDK client through the path and host routes', async () => {
  const u = await t.createUser();
  const p = await createProxy(t, u, up.url);
  const key = await createKey(t, p);
  for (const via of ['path', 'host'] as const) {
    const c = await connect(t, p, { token: key, via });
    const tools = await c.client.listTools();
    assert.ok(tools.tools.some((x) => x.name === 'echo'));
    const r = await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(r.content, [{ type: 'text', text: 'hi' }]);
    await c.close();
  }
});
