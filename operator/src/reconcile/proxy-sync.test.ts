// An API whose answers drift from the contract (another version, a proxy in between): the typed client refuses the
// body, and the object's condition says which call, route and field, instead of the operator acting on a wrong object.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from '@tollgate/contract';
import { LLM_ROUTES } from './llm-proxy.ts';
import { MCP_ROUTES } from './mcp-proxy.ts';
import { deleteRemoteProxy, findRemoteProxy, unmarkedName } from './proxy-sync.ts';

/** Answers 200 with a body of the right outer shape whose records are wrong, for every route it is asked. */
const server = createServer((req, res) => {
  const drifted: Record<string, unknown> = {
    'GET /api/llm': { proxies: [{ id: 'l1', name: 7 }] },
    'GET /api/llm/l1': { id: 'l1' },
    'GET /api/mcp': { servers: 'none' },
  };
  const body = drifted[`${req.method} ${req.url}`];
  res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body ?? { error: 'not found' }));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
after(() => server.close());
const api = new ApiClient({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 't' });

test('a drifted answer is a ContractMismatch condition naming the call, the route and the field; nothing is adopted', async () => {
  const listed = await findRemoteProxy(api, LLM_ROUTES, { statusId: undefined, uid: 'u' });
  assert.equal(listed.ok, false);
  const o = !listed.ok ? listed.outcome : undefined;
  assert.equal(o?.synced.reason, 'ContractMismatch');
  assert.equal(o?.ready.status, 'False');
  assert.deepEqual(o?.requeue, { kind: 'after', ms: 60_000 });
  assert.match(o!.synced.message, /^Listing the LLM proxies failed: GET \/api\/llm answered a body that does not match the contract: proxies\.0\.name: /);
  assert.equal(o?.event?.message, o?.synced.message);

  const read = await findRemoteProxy(api, LLM_ROUTES, { statusId: 'l1', uid: 'u' });
  assert.match(!read.ok ? read.outcome.synced.message : '', /^Reading the LLM proxy failed: GET \/api\/llm\/:id answered a body that does not match the contract: name: /);

  const cleanup = await deleteRemoteProxy(api, MCP_ROUTES, { statusId: undefined, uid: 'u', policy: 'Delete' });
  assert.match(cleanup?.synced.message ?? '', /^Listing the MCP servers failed: GET \/api\/mcp answered a body that does not match the contract: servers: /, 'no DELETE on a guess');

  const adopt = await findRemoteProxy(api, LLM_ROUTES, { statusId: undefined, uid: 'u', adoptId: 'l1' });
  assert.match(!adopt.ok ? adopt.outcome.synced.message : '', /^Reading the LLM proxy to adopt failed: GET \/api\/llm\/:id answered a body that does not match the contract: name: /, 'nothing adopted on a guess');
});

test('an orphaned proxy loses exactly its own UID mark', () => {
  const uid = '6f1c0a52-1111-2222-3333-444455556666';
  assert.equal(unmarkedName(`docs [k8s:${uid}]`, uid), 'docs');
  assert.equal(unmarkedName('docs [k8s:00000000-1111-2222-3333-444455556666]', uid), 'docs [k8s:00000000-1111-2222-3333-444455556666]', 'another object\'s mark stays');
  assert.equal(unmarkedName('made through REST', uid), 'made through REST');
});
