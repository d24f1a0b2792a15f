// DNS-rebinding protection (issue 10, defect 1): the gateway serves only its own host names. Unit cases for the
// decision, then the real thing: the MCP SDK client reaching the gateway under a rebound name is refused, under a
// configured public name it works, and the official conformance scenario `dns-rebinding-protection` passes through a
// proxy exactly as it does against an SDK server that protects itself.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPinnedAgent } from '../net/pinned-dispatcher.ts';
import { fetchVia } from '@tollgate/testkit/undici-fetch.ts';
import { startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';
import { buildHostCheck, hostName } from './host-check.ts';
import { createKey, createProxy, INIT, rawPost, type ProxyUnderTest } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';

describe('the host decision', () => {
  const allowed = buildHostCheck({ proxyDomain: 'proxy.example.net', host: '0.0.0.0', publicHosts: ['gateway.example.com', '*.ai.example.com', '[2001:db8::1]'] });
  test('names the gateway serves pass, with or without a port', () => {
    for (const h of ['localhost', 'localhost:8081', 'LOCALHOST:1', 'a.b.localhost', '127.0.0.1:8081', '127.9.9.9', '[::1]:8081', '[::1]',
      'proxy.example.net', 'abc.proxy.example.net:443', 'gateway.example.com', 'gateway.example.com.', 'x.ai.example.com', 'a.b.ai.example.com:8443', '[2001:db8::1]:80']) {
      assert.equal(allowed(h, undefined), true, h);
    }
  });
  test('every other name is refused, look-alikes included', () => {
    for (const h of ['evil.example.com', 'evil.example.com:8081', 'localhost.evil.com', 'proxy.example.net.evil.com', 'xproxy.example.net', 'ai.example.com',
      'gateway.example.com.evil', '0.0.0.0:8081', '10.0.0.5', '', ' ']) {
      assert.equal(allowed(h, undefined), false, h);
    }
    assert.equal(allowed(undefined, undefined), false, 'no Host at all');
  });
  test('the address the connection arrived on passes as a Host, in either IPv4 notation', () => {
    assert.equal(allowed('10.0.0.5:8081', '10.0.0.5'), true);
    assert.equal(allowed('10.0.0.5', '::ffff:10.0.0.5'), true);
    assert.equal(allowed('10.0.0.6', '10.0.0.5'), false);
  });
  test('a specific listen address is one of the names', () => {
    const check = buildHostCheck({ proxyDomain: 'proxy.localhost', host: '192.0.2.10', publicHosts: [] });
    assert.equal(check('192.0.2.10:8081', undefined), true);
    assert.equal(check('192.0.2.11:8081', undefined), false);
  });
  test('hostName strips port, brackets and the trailing dot', () => {
    assert.deepEqual(['Example.COM:80', '[::1]:8081', 'a.b.', '[fe80::1]'].map(hostName), ['example.com', '::1', 'a.b', 'fe80::1']);
  });
});

describe('through a running gateway', () => {
  let t: TestApp;
  let up: McpUpstream;
  let p: ProxyUnderTest;
  let key: string;
  before(async () => {
    t = await startTestApp({ env: { TOLLGATE_GATEWAY_PUBLIC_HOSTS: 'mcp.example.test' } });
    up = await startMcpUpstream();
    const user = await t.createUser();
    p = await createProxy(t, user, up.url);
    key = await createKey(t, p);
  });
  after(async () => {
    await up.close();
    await t.close();
  });

  /** An MCP SDK client whose connections for `name` reach the gateway: what a DNS-rebound name looks like. */
  async function sdkClientAs(name: string): Promise<{ connect(): Promise<void>; close(): Promise<void> }> {
    const gw = new URL(t.gateway);
    const agent = createPinnedAgent({ hostname: name, ip: gw.hostname, port: Number(gw.port) });
    const transport = new StreamableHTTPClientTransport(new URL(`http://${name}:${gw.port}/${p.id}/`), { requestInit: { headers: { authorization: `Bearer ${key}` } }, fetch: fetchVia(agent) });
    const client = new Client({ name: 'rebinding-test', version: '1.0.0' });
    return {
      connect: () => client.connect(transport),
      async close() {
        await client.close();
        await agent.close();
      },
    };
  }

  test('an MCP SDK client under a rebound name is refused with 403 before any routing; the upstream never sees it', async () => {
    const seen = up.requests.length;
    const c = await sdkClientAs('evil.example.com');
    try {
      await assert.rejects(c.connect(), /403|Host not allowed/);
    } finally {
      await c.close();
    }
    assert.equal(up.requests.length, seen);
    const port = new URL(t.gateway).port;
    const viaEvil = fetchVia(createPinnedAgent({ hostname: 'evil.example.com', ip: '127.0.0.1', port: Number(port) }));
    const raw = await viaEvil(`http://evil.example.com:${port}/${p.id}/`, {
      method: 'POST', body: JSON.stringify(INIT),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example.com' },
    }).catch((err: unknown) => err);
    assert.ok(!(raw instanceof Error), String(raw));
    const r = raw as Response;
    assert.equal(r.status, 403);
    assert.deepEqual(await r.json(), { error: `Host not allowed: "evil.example.com:${port}" is not a host name of this gateway` });
  });

  test('an MCP SDK client under a configured public name (TOLLGATE_GATEWAY_PUBLIC_HOSTS) works, and so does the loopback address', async () => {
    const c = await sdkClientAs('mcp.example.test');
    try {
      await c.connect();
    } finally {
      await c.close();
    }
    const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
    assert.equal(r.status, 200, r.text);
  });

  const CONFORMANCE = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json').replace(/package\.json$/, 'dist/index.js');
  const PRELOAD = fileURLToPath(import.meta.resolve('@tollgate/testkit/conformance-preload.mjs'));

  /**
   * Runs the official conformance suite's server scenarios (one, or all) against url; returns each scenario's checks
   * as `scenario/check id` → status.
   */
  async function conformance(url: string, clientKey?: string, scenario?: string): Promise<Record<string, string>> {
    const out = mkdtempSync(join(tmpdir(), 'tollgate-conformance-'));
    try {
      const args = ['--import', PRELOAD, CONFORMANCE, 'server', '--url', url, ...(scenario ? ['--scenario', scenario] : []), '-o', out];
      const child = spawn(process.execPath, args, {
        env: { ...process.env, TOLLGATE_TEST_ORIGIN: new URL(url).origin, TOLLGATE_TEST_CLIENT_KEY: clientKey ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      child.stdout.on('data', (d: Buffer) => { log += d; });
      child.stderr.on('data', (d: Buffer) => { log += d; });
      await new Promise((r) => child.once('exit', r));
      const files = readdirSync(out, { recursive: true }).map(String).filter((f) => f.endsWith('checks.json'));
      assert.ok(files.length, `the suite wrote its checks: ${log}`);
      const result: Record<string, string> = {};
      for (const f of files) {
        const name = f.split(/[\\/]/)[0]!.replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
        for (const c of JSON.parse(readFileSync(join(out, f), 'utf8')) as Array<{ id: string; status: string }>) result[`${name}/${c.id}`] = c.status;
      }
      return result;
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }

  test('the conformance scenario dns-rebinding-protection passes through a proxy as it does against a protected SDK server', async () => {
    const direct = await startMcpUpstream({ hostProtection: true });
    try {
      const expected = await conformance(direct.url, undefined, 'dns-rebinding-protection');
      assert.deepEqual(expected, {
        'server-dns-rebinding-protection/localhost-host-rebinding-rejected': 'SUCCESS',
        'server-dns-rebinding-protection/localhost-host-valid-accepted': 'SUCCESS',
      });
      assert.deepEqual(await conformance(p.pathUrl, key, 'dns-rebinding-protection'), expected);
    } finally {
      await direct.close();
    }
  });

  test('every conformance scenario ends the same through a proxy as directly, check by check (the proxy is transparent)', async () => {
    const protectedUp = await startMcpUpstream({ hostProtection: true });
    try {
      const proxied = await createProxy(t, p.user, protectedUp.url);
      const proxiedKey = await createKey(t, proxied);
      const direct = await conformance(protectedUp.url);
      assert.equal(Object.keys(direct).length, 32, 'conformance 0.1.16 makes 32 checks in its server scenarios');
      assert.deepEqual(await conformance(proxied.pathUrl, proxiedKey), direct);
    } finally {
      await protectedUp.close();
    }
  });

});
