// The connection Secret is written by a namespace's users, so the operator trusts only what it must, checked on a
// real Kubernetes API server with the operator started as users start it (`--allowed-api-urls`): a url outside the
// allow-list gets no request at all, a management API that redirects is not followed, and an API's failed answer
// reaches status and Events only as a bounded, printable summary. The servers here record every request they get.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '@tollgate/testkit/harness.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import {
  condition, connectedNamespace, startClusterWithApp, startOperator, statusOf, type Cluster, type ClusterWithApp, type OperatorProcess,
} from './kit.ts';

const WAIT = { timeoutMs: 45_000, intervalMs: 200 };
/** What must never reach a status or an Event: C0 and C1 controls, zero-width and bidi formatting characters. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;
const HUGE_BYTES = 1_000_000;

interface Recorder { url: string; requests: Array<{ method: string; url: string; authorization?: string }>; close(): Promise<void> }

async function recordingServer(handler: RequestListener): Promise<Recorder> {
  const requests: Recorder['requests'] = [];
  const server = createServer((req: IncomingMessage, res) => {
    requests.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

let stack: ClusterWithApp;
let cluster: Cluster;
let t: TestApp;
/** An internal service the operator must never be made to call: outside the allow-list, and a redirect's target. */
let internal: Recorder;
/** A "management API" on the allow-list that misbehaves, by path: redirects, fails with hostile bodies, or drifts. */
let hostile: Recorder;
let operator: OperatorProcess;

before(async () => {
  stack = await startClusterWithApp();
  ({ cluster, t } = stack);
  internal = await recordingServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"proxies":[]}'); });
  hostile = await recordingServer((req, res) => {
    const [, mode, ...rest] = req.url!.split('/');
    if (mode === 'redirect') {
      res.writeHead(302, { location: `${internal.url}/${rest.join('/')}` });
      res.end();
    } else if (mode === 'html') {
      // A huge non-JSON body full of terminal escapes, NULs and bidi overrides.
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('\u001b[2J\u0000<h1>oops</h1>\u202e'.padEnd(HUGE_BYTES, '\u0007x'));
    } else if (mode === 'drift') {
      // A success whose body is not what the contract says (another version of the API, say).
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ proxies: 'none' }));
    } else {
      // JSON whose `error` is huge and laced with control characters: shown only cleaned and cut.
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `database\r\nexploded\u0000\u001b[31m\u202etxet${'A'.repeat(50_000)}` }));
    }
  });
  operator = await startOperator(cluster, { TOLLGATE_OPERATOR_LEASE_NAMESPACE: 'default' }, ['--allowed-api-urls', `${t.api},${hostile.url}`]);
});

after(async () => {
  await operator?.stop();
  await stack?.close();
  await internal?.close();
  await hostile?.close();
});

/** A namespace whose connection Secret has this url (and the test user's PAT), with one LlmProxy `p` using it. */
async function proxyConnectedTo(ns: string, url: string): Promise<void> {
  await connectedNamespace(stack, ns, url, { apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'p', namespace: ns }, spec: { provider: 'openai' } });
}

/** The LlmProxy `p` once its Ready condition has this reason. */
async function readyReason(ns: string, reason: string) {
  return eventually(async () => {
    const o = await cluster.get('llmproxy', 'p', ns);
    return condition(o, 'Ready')?.reason === reason ? o : undefined;
  }, { ...WAIT, what: `llmproxy ${ns}/p Ready reason ${reason}` });
}

/** The Events of `p` with this reason, once there is one (the Event is recorded just after the status is written). */
async function eventsOf(ns: string, reason: string): Promise<Array<{ message: string; count: number }>> {
  return eventually(async () => {
    const items = JSON.parse(await cluster.ok(['get', 'events', '-n', ns, '-o', 'json'])).items as Array<{ reason: string; message: string; count: number; involvedObject: { name: string } }>;
    const mine = items.filter((e) => e.reason === reason && e.involvedObject.name === 'p');
    return mine.length ? mine : undefined;
  }, { ...WAIT, what: `a ${reason} Event in ${ns}` });
}

test('a connection Secret whose url is outside the allow-list: not reconciled, ConnectionNotAllowed, an Event, and no request reaches the url', async () => {
  await proxyConnectedTo('allowed', t.api);
  await proxyConnectedTo('elsewhere', `${internal.url}/latest/meta-data`);
  const ok = await readyReason('allowed', 'Ready');
  assert.equal(statusOf(await stack.api.call('GET /api/llm/:id', { params: { id: ok.status.id } })), 200, 'an allowed url works as before');

  const refused = await readyReason('elsewhere', 'ConnectionNotAllowed');
  assert.equal(condition(refused, 'Ready')!.status, 'False');
  assert.equal(condition(refused, 'Synced')!.reason, 'ConnectionNotAllowed');
  assert.equal(condition(refused, 'Ready')!.message,
    `Secret tollgate-connection: url ${internal.url}/latest/meta-data is not one of the management API URLs this operator may call (TOLLGATE_OPERATOR_ALLOWED_API_URLS); nothing was sent to it`);
  assert.equal(refused.status.id, undefined);
  assert.equal((await eventsOf('elsewhere', 'ConnectionNotAllowed'))[0]!.message, condition(refused, 'Ready')!.message);
  const secret = await cluster.get('secret', 'tollgate-connection', 'elsewhere');
  assert.equal(secret.metadata.finalizers, undefined, 'a Secret that is not used is not held by a finalizer');
  // It never reached an API: deleting it is immediate, and still nothing is sent.
  await cluster.ok(['delete', 'llmproxy', 'p', '-n', 'elsewhere', '--timeout=30s']);
  assert.deepEqual(internal.requests, []);
});

test('a management API that answers 302 to an internal URL is not followed: the target gets nothing, the status says redirect', async () => {
  await proxyConnectedTo('redirected', `${hostile.url}/redirect`);
  const o = await readyReason('redirected', 'ConnectionRedirected');
  assert.equal(condition(o, 'Ready')!.status, 'False');
  assert.equal(condition(o, 'Ready')!.message, 'Listing the LLM proxies failed (HTTP 302): a redirect, not followed: use the URL of the management API itself');
  assert.ok(hostile.requests.some((r) => r.url === '/redirect/api/llm' && r.authorization === `Bearer ${stack.user.pat}`), 'the allowed API was asked');
  assert.equal((await eventsOf('redirected', 'ConnectionRedirected'))[0]!.message, condition(o, 'Ready')!.message);
  assert.deepEqual(internal.requests, [], 'the redirect target got no request (and so no PAT)');
});

test('an API answering 500 with a huge or control-character body: status message and Event are bounded and sanitised', async () => {
  await proxyConnectedTo('html-junk', `${hostile.url}/html`);
  await proxyConnectedTo('json-junk', `${hostile.url}/json`);
  const html = await readyReason('html-junk', 'ApiUnavailable');
  assert.equal(condition(html, 'Ready')!.status, 'Unknown');
  assert.equal(condition(html, 'Ready')!.message, `Listing the LLM proxies failed (HTTP 500): non-JSON body, ${Buffer.byteLength('\u001b[2J\u0000<h1>oops</h1>\u202e'.padEnd(HUGE_BYTES, '\u0007x'))} bytes`);

  const json = await readyReason('json-junk', 'ApiUnavailable');
  const message = condition(json, 'Ready')!.message;
  assert.ok(message.startsWith('Listing the LLM proxies failed (HTTP 500): database exploded[31mtxetAAAA'), message.slice(0, 80));
  assert.ok(message.endsWith('A…'));
  assert.ok(message.length <= 260, `bounded: ${message.length} characters`);
  for (const ns of ['html-junk', 'json-junk']) {
    const obj = await cluster.get('llmproxy', 'p', ns);
    for (const c of obj.status.conditions) assert.doesNotMatch(c.message, UNPRINTABLE, `${ns} ${c.type}`);
    for (const e of await eventsOf(ns, 'ApiUnavailable')) {
      assert.equal(e.message, condition(obj, 'Ready')!.message, 'the Event says what the status says');
      assert.doesNotMatch(e.message, UNPRINTABLE);
    }
  }
});

test('a management API whose answer does not match the contract: ContractMismatch, naming the call and the field', async () => {
  await proxyConnectedTo('drifted', `${hostile.url}/drift`);
  const o = await readyReason('drifted', 'ContractMismatch');
  assert.equal(condition(o, 'Ready')!.status, 'False');
  assert.match(condition(o, 'Ready')!.message,
    /^Listing the LLM proxies failed: GET \/api\/llm answered a body that does not match the contract: proxies: .+ \(are the operator and the management API of the same version\?\)$/);
  assert.equal(o.status.id, undefined, 'nothing was created on a guess');
  assert.equal((await eventsOf('drifted', 'ContractMismatch'))[0]!.message, condition(o, 'Ready')!.message);
});

test('without an allow-list the operator keeps working as before and warns once, at start', async () => {
  // A second replica: it only stands by (the Lease is held), which is enough to see what it logs at start.
  const plain = await startOperator(cluster, { TOLLGATE_OPERATOR_LEASE_NAMESPACE: 'default' });
  try {
    const started = await eventually(() => plain.logs().includes('operator started') && plain.logs(), { ...WAIT, what: 'the start log line' });
    assert.equal(started.match(/TOLLGATE_OPERATOR_ALLOWED_API_URLS is not set/g)?.length, 1, started);
    assert.match(started, /"allowedApiUrls":"\(any: not set\)"/);
  } finally {
    await plain.stop();
  }
  assert.doesNotMatch(operator.logs(), /is not set/, 'the operator given a list does not warn');
  assert.match(operator.logs(), new RegExp(`"allowedApiUrls":"${t.api},${hostile.url}"`));
});
