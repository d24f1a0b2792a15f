// Two gateway processes on one PostgreSQL and one Redis enforce one rate limit together (issue 3: "counters shared
// across gateway replicas through Redis"), and a ban imposed through one is enforced by the other. The second
// gateway is a real child process (`tollgate serve --role gateway`) on the same schema, key prefix and master key.
// Needs DATABASE_URL and REDIS_URL (with the embedded datastores two processes cannot share state).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startReplicaPair, type ReplicaPair } from '@tollgate/testkit/child-gateway.ts';
import type { TestApp } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { createKey, createProxy, INIT, putRules, rawPost, type ProxyUnderTest } from '@tollgate/testkit/mcp-kit.ts';

const shared = !!process.env.DATABASE_URL && !!process.env.REDIS_URL;
const why = 'two gateway replicas need a shared PostgreSQL and Redis: set DATABASE_URL and REDIS_URL to run this test';

let pair: ReplicaPair;
let t: TestApp;
let up: McpUpstream;
let gatewayB = '';

before(async () => {
  if (!shared) return;
  up = await startMcpUpstream();
  pair = await startReplicaPair();
  ({ t, b: { url: gatewayB } } = pair);
});
after(async () => {
  if (!shared) return;
  await pair.close();
  await up.close();
});

test('two gateway processes enforce one rate limit and one ban together', { skip: shared ? false : why }, async () => {
  const user = await t.createUser();
  const p: ProxyUnderTest = await createProxy(t, user, up.url);
  const key = await createKey(t, p);
  const urlB = `${gatewayB}/${p.id}/`;
  await putRules(t, p, [{ rule_type: 'rate_limit', tools: ['*'], name: 'shared', match_key: 'api_key', threshold: 4, timespan: 60, ban_after_n_exceeded: 2, ban_timespan: 120 }]);
  await pair.caughtUp();
  const h = { authorization: `Bearer ${key}` };
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await rawPost(i % 2 ? urlB : p.pathUrl, INIT, h)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200]);
  const overB = await rawPost(urlB, INIT, h);
  assert.equal(overB.status, 429, 'the fifth request overall is over the shared threshold, on either replica');
  const banningA = await rawPost(p.pathUrl, INIT, h);
  assert.equal(banningA.status, 429);
  assert.equal(banningA.headers.get('retry-after'), '120');
  const bannedB = await rawPost(urlB, INIT, h);
  assert.equal(bannedB.status, 403, 'the ban imposed by one replica is enforced by the other');
  assert.deepEqual(bannedB.json, { error: 'IP address temporarily banned' });
});
