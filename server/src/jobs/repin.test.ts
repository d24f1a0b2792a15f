// The periodic DNS re-pin: new public answers move the pin (and reach the gateway), refused answers keep the old
// pin and are audited once as `pin_rejected`, resolver outages are only logged, and a concurrent URL change wins.
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Lookup } from '../net/upstream-guard.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { runRepin } from './repin.ts';

/** Mutable DNS: tests set answers per name; a name may be gated to hold its answer until released. */
const dns = new Map<string, string[]>();
const gates = new Map<string, { reached: () => void; released: Promise<void> }>();
const lookup: Lookup = async (h) => {
  const gate = gates.get(h);
  if (gate) {
    gate.reached();
    await gate.released;
  }
  const a = dns.get(h);
  if (!a) throw Object.assign(new Error(`ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
  return a;
};

let t: TestApp;
let u: TestUser;
let mcpId: string;
let llmId: string;

before(async () => {
  t = await startTestApp({ strictUpstreams: true, lookup });
  u = await t.createUser();
  dns.set('mcp.example', ['93.184.216.34']);
  dns.set('api.openai.com', ['104.18.6.192']);
  const m = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'm', url: 'https://mcp.example/mcp' } });
  assert.equal(m.status, 201, m.text);
  mcpId = m.body.server.id;
  const l = await t.request('POST', '/api/llm', { token: u.pat, body: { name: 'l', provider: 'openai' } });
  assert.equal(l.status, 201, l.text);
  llmId = l.body.id;
});
after(async () => { await t.close(); });

const pinOf = async (kind: 'mcp' | 'llm', id: string) => (await t.request('GET', `/api/${kind}/${id}`, { token: u.pat })).body.pin;
const gatewayPin = (id: string) => t.app.gateway!.store.current.proxies.get(id)?.pin;

async function pinRejectedEvents() {
  await t.app.services.audit.flush();
  return t.app.services.db.query<{ mcp_uuid: string | null; llm_uuid: string | null; details: { reason: string; hostname: string; keptPin: unknown } }>(
    `SELECT mcp_uuid, llm_uuid, details FROM audit_events WHERE user_id = $1 AND event_type = 'pin_rejected' ORDER BY id`, [u.userId]);
}

describe('runRepin', () => {
  test('unchanged answers write nothing', async () => {
    const v = t.app.gateway!.store.version;
    assert.equal(await runRepin(t.app.services), 0);
    assert.equal(t.app.gateway!.store.version, v);
    assert.deepEqual(await pinOf('mcp', mcpId), { hostname: 'mcp.example', ip: '93.184.216.34', port: 443 });
    assert.deepEqual(await pinOf('llm', llmId), { hostname: 'api.openai.com', ip: '104.18.6.192', port: 443 });
  });

  test('a new public answer moves the pin and the gateway follows', async () => {
    dns.set('mcp.example', ['93.184.216.35']);
    dns.set('api.openai.com', ['104.18.7.192']);
    assert.ok(await runRepin(t.app.services) > 0);
    assert.deepEqual(await pinOf('mcp', mcpId), { hostname: 'mcp.example', ip: '93.184.216.35', port: 443 });
    assert.deepEqual(await pinOf('llm', llmId), { hostname: 'api.openai.com', ip: '104.18.7.192', port: 443 });
    assert.equal(gatewayPin(mcpId)?.ip, '93.184.216.35');
    assert.equal(gatewayPin(llmId)?.ip, '104.18.7.192');
  });

  test('round-robin answers that still contain the pinned IP keep it', async () => {
    dns.set('mcp.example', ['1.2.3.4', '93.184.216.35']);
    assert.equal(await runRepin(t.app.services), 0);
    assert.equal((await pinOf('mcp', mcpId)).ip, '93.184.216.35');
  });

  test('DNS rebinding: a private answer is refused, the old pin stays, and the owner gets one pin_rejected event', async () => {
    dns.set('mcp.example', ['10.0.0.1']);
    dns.set('api.openai.com', ['104.18.7.192', '169.254.169.254']);
    assert.equal(await runRepin(t.app.services), 0);
    assert.equal(await runRepin(t.app.services), 0); // refused again: still audited once
    assert.equal((await pinOf('mcp', mcpId)).ip, '93.184.216.35');
    assert.equal((await pinOf('llm', llmId)).ip, '104.18.7.192');
    assert.equal(gatewayPin(mcpId)?.ip, '93.184.216.35');
    const events = await pinRejectedEvents();
    assert.equal(events.length, 2, JSON.stringify(events));
    const mcp = events.find((e) => e.mcp_uuid === mcpId)!;
    assert.deepEqual(mcp.details, { reason: 'host resolves to a private address (10.0.0.1)', hostname: 'mcp.example', keptPin: { hostname: 'mcp.example', ip: '93.184.216.35', port: 443 } });
    const llm = events.find((e) => e.llm_uuid === llmId)!;
    assert.equal(llm.details.reason, 'host resolves to a link-local address (169.254.169.254)');
    assert.equal(llm.details.hostname, 'api.openai.com');
  });

  test('a resolver outage keeps the pins and is not audited', async () => {
    dns.delete('mcp.example');
    dns.delete('api.openai.com');
    const before = (await pinRejectedEvents()).length;
    assert.equal(await runRepin(t.app.services), 0);
    assert.equal((await pinOf('mcp', mcpId)).ip, '93.184.216.35');
    assert.equal((await pinOf('llm', llmId)).ip, '104.18.7.192');
    assert.equal((await pinRejectedEvents()).length, before);
    dns.set('mcp.example', ['93.184.216.35']);
    dns.set('api.openai.com', ['104.18.7.192']);
  });

  test('a changed operator override moves the LLM upstream and its pin (and back)', async () => {
    const config = t.app.services.config;
    config.providerBaseUrls.openai = 'http://127.0.0.1:9301';
    try {
      assert.ok(await runRepin(t.app.services) > 0);
      const got = (await t.request('GET', `/api/llm/${llmId}`, { token: u.pat })).body;
      assert.equal(got.upstreamUrl, 'http://127.0.0.1:9301');
      assert.deepEqual(got.pin, { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9301 }, 'an override is trusted: loopback is fine');
      assert.equal(t.app.gateway!.store.current.proxies.get(llmId)?.upstreamUrl, 'http://127.0.0.1:9301');
    } finally {
      delete config.providerBaseUrls.openai;
    }
    assert.ok(await runRepin(t.app.services) > 0);
    const got = (await t.request('GET', `/api/llm/${llmId}`, { token: u.pat })).body;
    assert.equal(got.upstreamUrl, 'https://api.openai.com');
    assert.deepEqual(got.pin, { hostname: 'api.openai.com', ip: '104.18.7.192', port: 443 });
  });

  test('a URL changed while the job was resolving wins over the job\'s answer', async () => {
    dns.set('slow.example', ['93.184.216.40']);
    dns.set('fast.example', ['93.184.216.50']);
    const m = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'race', url: 'https://slow.example/' } });
    assert.equal(m.status, 201, m.text);
    let reached!: () => void;
    let release!: () => void;
    const atLookup = new Promise<void>((r) => { reached = r; });
    gates.set('slow.example', { reached, released: new Promise<void>((r) => { release = r; }) });
    dns.set('slow.example', ['93.184.216.41']);
    const job = runRepin(t.app.services);
    await atLookup;
    gates.delete('slow.example');
    const p = await t.request('PATCH', `/api/mcp/${m.body.server.id}`, { token: u.pat, body: { url: 'https://fast.example/' } });
    assert.equal(p.status, 200, p.text);
    release();
    await job;
    assert.deepEqual(await pinOf('mcp', m.body.server.id), { hostname: 'fast.example', ip: '93.184.216.50', port: 443 });
  });
});

describe('scheduling', () => {
  test('the job runs every TOLLGATE_REPIN_INTERVAL_MS', async () => {
    dns.set('tick.example', ['93.184.216.60']);
    const app = await startTestApp({ strictUpstreams: true, lookup, env: { TOLLGATE_REPIN_INTERVAL_MS: '100' } });
    try {
      const owner = await app.createUser();
      const m = await app.request('POST', '/api/mcp', { token: owner.pat, body: { name: 'tick', url: 'https://tick.example/' } });
      assert.equal(m.status, 201, m.text);
      dns.set('tick.example', ['93.184.216.61']);
      // The job runs on its own timer: the test waits for its effect, the gateway's new pin.
      await eventually(() => app.app.gateway!.store.current.proxies.get(m.body.server.id)?.pin?.ip === '93.184.216.61', { what: 'the re-pinned address', timeoutMs: 5000 });
    } finally {
      await app.close();
    }
  });
});
