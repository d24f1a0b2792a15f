// The SSRF guard (spec "What the service does" 9-10, issue 2 item 6): a table of hostile upstream URLs and DNS answers
// that must be refused, the cases that must pass, the two development switches, operator-trusted pins and the
// DNS-rebinding behaviour of a re-resolve. DNS is an injected lookup, so every answer is exactly what the test says.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { parseCidr } from '@tollgate/contract';
import { UpstreamGuard, UpstreamRejected, type Lookup, type RejectionCode } from './upstream-guard.ts';

/** DNS for the tests: names map to fixed answers; anything else is NXDOMAIN. */
const ZONE: Record<string, string[]> = {
  'localhost': ['127.0.0.1', '::1'],
  'localhost.': ['127.0.0.1'],
  'internal.example': ['10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '192.168.0.10'],
  'mixed6.example': ['2606:2800:220:1:248:1893:25c8:1946', 'fd00::1'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'nat64.example': ['64:ff9b::a9fe:a9fe'],
  'nat64-local.example': ['64:ff9b:1::a00:1'],
  'mapped-hex.example': ['::ffff:7f00:1'],
  'mapped-long.example': ['0:0:0:0:0:ffff:a9fe:a9fe'],
  'cgnat.example': ['100.100.100.100'],
  'empty.example': [],
  'garbage.example': ['not-an-ip'],
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rr.example': ['1.1.1.1', '8.8.8.8'],
};

const zoneLookup: Lookup = async (h) => {
  const a = ZONE[h];
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
  return a;
};

const strict = new UpstreamGuard({ allowCidrs: [], allowHttp: false, lookup: zoneLookup });

async function rejection(guard: UpstreamGuard, url: string): Promise<UpstreamRejected> {
  try {
    const pin = await guard.pin(url);
    assert.fail(`${url} was accepted and pinned to ${JSON.stringify(pin)}`);
  } catch (err) {
    if (err instanceof UpstreamRejected) return err;
    throw err;
  }
}

const loopback = (ip: string) => `host resolves to a loopback address (${ip})`;

/** [case, url, exact reason, code] */
const HOSTILE: Array<[string, string, string, RejectionCode]> = [
  ['plain http', 'http://example.com/mcp', 'must use https', 'scheme'],
  ['ftp scheme', 'ftp://example.com/', 'must use https', 'scheme'],
  ['file scheme', 'file:///etc/passwd', 'must use https', 'scheme'],
  ['gopher scheme', 'gopher://127.0.0.1:6379/_INFO', 'must use https', 'scheme'],
  ['not a URL', 'example.com/mcp', 'must be a valid URL', 'invalid_url'],
  ['credentials in the URL', 'https://user:secret@example.com/', 'must not contain credentials', 'credentials'],
  ['user name only', 'https://admin@example.com/', 'must not contain credentials', 'credentials'],
  ['port 0', 'https://example.com:0/', 'must not use port 0', 'port'],
  ['localhost', 'https://localhost/', loopback('127.0.0.1'), 'blocked_address'],
  ['localhost with a trailing dot', 'https://localhost./', loopback('127.0.0.1'), 'blocked_address'],
  ['127.0.0.1', 'https://127.0.0.1/', loopback('127.0.0.1'), 'blocked_address'],
  ['127.x beyond .1', 'https://127.255.255.254:8443/', loopback('127.255.255.254'), 'blocked_address'],
  ['IPv4 with a trailing dot', 'https://127.0.0.1./', loopback('127.0.0.1'), 'blocked_address'],
  ['decimal IPv4 (2130706433)', 'https://2130706433/', loopback('127.0.0.1'), 'blocked_address'],
  ['hex IPv4 (0x7f.1)', 'https://0x7f.1/', loopback('127.0.0.1'), 'blocked_address'],
  ['octal IPv4 (0177.0.0.1)', 'https://0177.0.0.1/', loopback('127.0.0.1'), 'blocked_address'],
  ['short IPv4 (127.1)', 'https://127.1/', loopback('127.0.0.1'), 'blocked_address'],
  ['percent-encoded IPv4', 'https://%31%32%37.0.0.1/', loopback('127.0.0.1'), 'blocked_address'],
  ['0.0.0.0', 'https://0.0.0.0/', 'host resolves to a "this network" address (0.0.0.0)', 'blocked_address'],
  ['10/8', 'https://10.0.0.1/', 'host resolves to a private address (10.0.0.1)', 'blocked_address'],
  ['172.16/12 low end', 'https://172.16.0.1/', 'host resolves to a private address (172.16.0.1)', 'blocked_address'],
  ['172.16/12 high end', 'https://172.31.255.255/', 'host resolves to a private address (172.31.255.255)', 'blocked_address'],
  ['192.168/16', 'https://192.168.1.1/', 'host resolves to a private address (192.168.1.1)', 'blocked_address'],
  ['cloud metadata 169.254.169.254', 'https://169.254.169.254/latest/meta-data/', 'host resolves to a link-local address (169.254.169.254)', 'blocked_address'],
  ['100.64/10 CGNAT', 'https://100.64.0.1/', 'host resolves to a carrier-grade NAT address (100.64.0.1)', 'blocked_address'],
  ['224/4 multicast', 'https://224.0.0.1/', 'host resolves to a multicast address (224.0.0.1)', 'blocked_address'],
  ['240/4 reserved', 'https://240.0.0.1/', 'host resolves to a reserved address (240.0.0.1)', 'blocked_address'],
  ['255.255.255.255 broadcast', 'https://255.255.255.255/', 'host resolves to a reserved address (255.255.255.255)', 'blocked_address'],
  ['198.18/15 benchmarking', 'https://198.18.0.1/', 'host resolves to a benchmarking address (198.18.0.1)', 'blocked_address'],
  ['192.0.2/24 documentation', 'https://192.0.2.10/', 'host resolves to a documentation address (192.0.2.10)', 'blocked_address'],
  ['[::1]', 'https://[::1]/', loopback('::1'), 'blocked_address'],
  ['[::] unspecified', 'https://[::]/', 'host resolves to an unspecified address (::)', 'blocked_address'],
  ['[::ffff:127.0.0.1] IPv4-mapped', 'https://[::ffff:127.0.0.1]/', loopback('127.0.0.1'), 'blocked_address'],
  ['[::ffff:7f00:1] IPv4-mapped, hex', 'https://[::ffff:7f00:1]/', loopback('127.0.0.1'), 'blocked_address'],
  ['[::ffff:169.254.169.254] mapped metadata', 'https://[::ffff:169.254.169.254]/', 'host resolves to a link-local address (169.254.169.254)', 'blocked_address'],
  ['[::127.0.0.1] IPv4-compatible', 'https://[::127.0.0.1]/', 'host resolves to an IPv4-compatible IPv6 address (::7f00:1)', 'blocked_address'],
  ['fc00::/7 unique-local (fc)', 'https://[fc00::1]/', 'host resolves to a unique-local address (fc00::1)', 'blocked_address'],
  ['fc00::/7 unique-local (fd)', 'https://[fd12:3456:789a::1]/', 'host resolves to a unique-local address (fd12:3456:789a::1)', 'blocked_address'],
  ['fe80::/10 link-local', 'https://[fe80::1]/', 'host resolves to a link-local address (fe80::1)', 'blocked_address'],
  ['ff02:: multicast', 'https://[ff02::1]/', 'host resolves to a multicast address (ff02::1)', 'blocked_address'],
  ['64:ff9b::/96 NAT64 of 10.0.0.1', 'https://[64:ff9b::a00:1]/', 'host resolves to a NAT64 address (64:ff9b::a00:1)', 'blocked_address'],
  ['2001:db8::/32 documentation', 'https://[2001:db8::1]/', 'host resolves to a documentation address (2001:db8::1)', 'blocked_address'],
  ['2002::/16 6to4 of 127.0.0.1', 'https://[2002:7f00:1::1]/', 'host resolves to a 6to4 address (2002:7f00:1::1)', 'blocked_address'],
  ['Teredo 2001::/32', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'host resolves to an IETF protocol assignment address (2001:0:4136:e378:8000:63bf:3fff:fdd2)', 'blocked_address'],
  ['fec0::/10 site-local', 'https://[fec0::1]/', 'host resolves to a site-local address (fec0::1)', 'blocked_address'],
  ['hostname resolving to 10/8', 'https://internal.example/', 'host resolves to a private address (10.1.2.3)', 'blocked_address'],
  ['hostname resolving to the metadata address', 'https://metadata.example/', 'host resolves to a link-local address (169.254.169.254)', 'blocked_address'],
  ['hostname resolving to CGNAT', 'https://cgnat.example/', 'host resolves to a carrier-grade NAT address (100.100.100.100)', 'blocked_address'],
  ['one public and one private address', 'https://mixed.example/', 'host resolves to a private address (192.168.0.10)', 'blocked_address'],
  ['one public and one unique-local v6 address', 'https://mixed6.example/', 'host resolves to a unique-local address (fd00::1)', 'blocked_address'],
  ['DNS answer in IPv4-mapped form', 'https://mapped.example/', 'host resolves to a private address (10.0.0.1)', 'blocked_address'],
  ['DNS answer in NAT64 form of the metadata address', 'https://nat64.example/', 'host resolves to a NAT64 address (64:ff9b::a9fe:a9fe)', 'blocked_address'],
  // The hardening issue's additions: every numeric spelling of loopback and of the metadata address, IPv4-mapped
  // and NAT64 forms of both, as literals and as DNS answers.
  ['decimal IPv4 of the metadata address', 'https://2852039166/', 'host resolves to a link-local address (169.254.169.254)', 'blocked_address'],
  ['hex IPv4, one number (0x7f000001)', 'https://0x7f000001/', loopback('127.0.0.1'), 'blocked_address'],
  ['hex IPv4 of the metadata address (0xa9fea9fe)', 'https://0xa9fea9fe/', 'host resolves to a link-local address (169.254.169.254)', 'blocked_address'],
  ['octal IPv4, one number (017700000001)', 'https://017700000001/', loopback('127.0.0.1'), 'blocked_address'],
  ['octal IPv4 of the metadata address', 'https://0251.0376.0251.0376/', 'host resolves to a link-local address (169.254.169.254)', 'blocked_address'],
  ['mixed octal, hex and decimal parts (0177.0x0.1)', 'https://0177.0x0.1/', loopback('127.0.0.1'), 'blocked_address'],
  ['octal with leading zeros (00000177.1)', 'https://00000177.1/', loopback('127.0.0.1'), 'blocked_address'],
  ['IPv4-mapped, fully written', 'https://[0:0:0:0:0:ffff:127.0.0.1]/', loopback('127.0.0.1'), 'blocked_address'],
  ['IPv4-mapped metadata, hex', 'https://[::ffff:a9fe:a9fe]/', 'host resolves to a link-local address (169.254.169.254)', 'blocked_address'],
  ['IPv4-mapped 10/8', 'https://[::ffff:10.0.0.1]/', 'host resolves to a private address (10.0.0.1)', 'blocked_address'],
  ['64:ff9b::/96 NAT64 of loopback', 'https://[64:ff9b::7f00:1]/', 'host resolves to a NAT64 address (64:ff9b::7f00:1)', 'blocked_address'],
  ['64:ff9b::/96 NAT64 of loopback, dotted', 'https://[64:ff9b::127.0.0.1]/', 'host resolves to a NAT64 address (64:ff9b::7f00:1)', 'blocked_address'],
  ['64:ff9b::/96 NAT64 of a public address (refused whole)', 'https://[64:ff9b::5db8:d822]/', 'host resolves to a NAT64 address (64:ff9b::5db8:d822)', 'blocked_address'],
  ['64:ff9b:1::/48 local-use NAT64', 'https://[64:ff9b:1::a00:1]/', 'host resolves to a NAT64 local address (64:ff9b:1::a00:1)', 'blocked_address'],
  ['64:ff9b:1::/48 local-use NAT64, high end', 'https://[64:ff9b:1:ffff:ffff:ffff:ffff:ffff]/', 'host resolves to a NAT64 local address (64:ff9b:1:ffff:ffff:ffff:ffff:ffff)', 'blocked_address'],
  ['DNS answer in local-use NAT64 form', 'https://nat64-local.example/', 'host resolves to a NAT64 local address (64:ff9b:1::a00:1)', 'blocked_address'],
  ['DNS answer in IPv4-mapped hex form of loopback', 'https://mapped-hex.example/', loopback('127.0.0.1'), 'blocked_address'],
  ['DNS answer in long IPv4-mapped form of the metadata address', 'https://mapped-long.example/', 'host resolves to a link-local address (169.254.169.254)', 'blocked_address'],
  ['NXDOMAIN', 'https://nx.example/', 'host nx.example does not resolve', 'unresolvable'],
  ['empty DNS answer', 'https://empty.example/', 'host empty.example does not resolve', 'unresolvable'],
  ['unparseable DNS answer', 'https://garbage.example/', 'host garbage.example resolves to an unparseable address', 'unresolvable'],
];

describe('hostile upstreams are refused', () => {
  test('the table has at least 30 cases', () => assert.ok(HOSTILE.length >= 30));
  for (const [what, url, reason, code] of HOSTILE) {
    test(`${what}: ${url}`, async () => {
      const err = await rejection(strict, url);
      assert.equal(err.message, reason);
      assert.equal(err.code, code);
    });
  }

  test('WHATWG URL parsing normalises the numeric IPv4 forms before the guard sees them', () => {
    for (const form of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/', 'http://0x7f.0x0.0x0.0x1/', 'http://127.0.0.1./',
      'http://0x7f000001/', 'http://017700000001/', 'http://0177.0x0.1/', 'http://00000177.1/']) {
      assert.equal(new URL(form).hostname, '127.0.0.1', form);
    }
    assert.equal(new URL('https://[::ffff:127.0.0.1]/').hostname, '[::ffff:7f00:1]');
  });

  test('a lookup that hangs fails as unresolvable instead of hanging the caller', async () => {
    const hung = new UpstreamGuard({ allowCidrs: [], allowHttp: false, lookup: () => new Promise(() => undefined), lookupTimeoutMs: 50 });
    const err = await rejection(hung, 'https://slow.example/');
    assert.equal(err.code, 'unresolvable');
  });
});

describe('public upstreams pass and are pinned', () => {
  test('a public IPv4 literal', async () => {
    assert.deepEqual(await strict.pin('https://93.184.216.34/mcp'), { hostname: '93.184.216.34', ip: '93.184.216.34', port: 443 });
  });

  test('a public IPv6 literal with a port', async () => {
    assert.deepEqual(await strict.pin('https://[2606:2800:220:1:248:1893:25c8:1946]:8443/'),
      { hostname: '2606:2800:220:1:248:1893:25c8:1946', ip: '2606:2800:220:1:248:1893:25c8:1946', port: 8443 });
  });

  test('an IPv4-mapped public address is pinned as the IPv4 address it names', async () => {
    assert.deepEqual(await strict.pin('https://[::ffff:93.184.216.34]/'), { hostname: '::ffff:5db8:d822', ip: '93.184.216.34', port: 443 });
  });

  test('a hostname whose every address is public is pinned to the first', async () => {
    assert.deepEqual(await strict.pin('https://public.example/v1'), { hostname: 'public.example', ip: '93.184.216.34', port: 443 });
  });

  test('a preferred (current) IP that is still in the answer keeps the pin; otherwise the first address wins', async () => {
    assert.equal((await strict.pin('https://rr.example/', { prefer: '8.8.8.8' })).ip, '8.8.8.8');
    assert.equal((await strict.pin('https://rr.example/', { prefer: '9.9.9.9' })).ip, '1.1.1.1');
  });
});

describe('development switches', () => {
  test('TOLLGATE_UPSTREAM_ALLOW_CIDRS exempts exactly the listed ranges', async () => {
    const g = new UpstreamGuard({ allowCidrs: [parseCidr('127.0.0.0/8')!, parseCidr('fd00::/8')!], allowHttp: false, lookup: zoneLookup });
    assert.deepEqual(await g.pin('https://127.0.0.1:8443/'), { hostname: '127.0.0.1', ip: '127.0.0.1', port: 8443 });
    assert.deepEqual(await g.pin('https://[::ffff:127.0.0.2]/'), { hostname: '::ffff:7f00:2', ip: '127.0.0.2', port: 443 });
    assert.equal((await g.pin('https://mixed6.example/')).ip, '2606:2800:220:1:248:1893:25c8:1946');
    assert.equal((await rejection(g, 'https://10.0.0.1/')).message, 'host resolves to a private address (10.0.0.1)');
    assert.equal((await rejection(g, 'https://[::1]/')).message, loopback('::1'));
    assert.equal((await rejection(g, 'https://localhost/')).message, loopback('::1'), 'every address of the name must be allowed');
    assert.equal((await rejection(g, 'http://127.0.0.1/')).message, 'must use https');
  });

  test('TOLLGATE_UPSTREAM_ALLOW_HTTP allows http and nothing else', async () => {
    const g = new UpstreamGuard({ allowCidrs: [], allowHttp: true, lookup: zoneLookup });
    assert.deepEqual(await g.pin('http://public.example/'), { hostname: 'public.example', ip: '93.184.216.34', port: 80 });
    assert.equal((await rejection(g, 'http://127.0.0.1/')).message, loopback('127.0.0.1'));
    assert.equal((await rejection(g, 'ftp://public.example/')).message, 'must use https');
    assert.equal((await rejection(g, 'http://u:p@public.example/')).message, 'must not contain credentials');
    for (const url of ['http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.1/', 'http://[::ffff:7f00:1]/', 'http://[64:ff9b::7f00:1]/']) {
      assert.equal((await rejection(g, url)).code, 'blocked_address', url);
    }
  });

  test('a trusted (operator-configured) URL may be http and private, but is still resolved and must not carry credentials', async () => {
    assert.deepEqual(await strict.pin('http://internal.example:3128', { trusted: true }), { hostname: 'internal.example', ip: '10.1.2.3', port: 3128 });
    assert.deepEqual(await strict.pin('http://127.0.0.1:9999', { trusted: true }), { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9999 });
    await assert.rejects(strict.pin('http://nx.example/', { trusted: true }), (e: unknown) => e instanceof UpstreamRejected && e.code === 'unresolvable');
    await assert.rejects(strict.pin('http://u:p@internal.example/', { trusted: true }), /must not contain credentials/);
  });
});

describe('DNS rebinding', () => {
  test('a host that first answers public and later private is pinned once, then refused', async () => {
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const g = new UpstreamGuard({ allowCidrs: [], allowHttp: false, lookup: async () => answers.shift() ?? [] });
    const first = await g.pin('https://rebind.example/');
    assert.deepEqual(first, { hostname: 'rebind.example', ip: '93.184.216.34', port: 443 });
    const err = await rejection(g, 'https://rebind.example/');
    assert.equal(err.message, loopback('127.0.0.1'));
    assert.equal(err.code, 'blocked_address');
  });
});

describe('through the API: POST and PATCH /api/mcp with strict upstream checks', () => {
  let t: TestApp;
  let u: TestUser;
  before(async () => {
    t = await startTestApp({ strictUpstreams: true, lookup: zoneLookup });
    u = await t.createUser();
  });
  after(async () => { await t.close(); });

  const servers = async () => (await t.app.services.db.query('SELECT url FROM mcp_servers WHERE user_id = $1', [u.userId])).map((r) => r.url);

  test('every hostile URL of the table is a 400 `url: <reason>` and nothing is stored', async () => {
    for (const [what, url, reason] of HOSTILE) {
      const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url } });
      assert.deepEqual([r.status, r.body], [400, { error: `url: ${reason}` }], what);
    }
    assert.deepEqual(await servers(), []);
  });

  test('a public upstream is created and pinned; a PATCH to a hostile URL is refused and keeps URL and pin', async () => {
    const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'ok', url: 'https://public.example/mcp' } });
    assert.equal(r.status, 201, r.text);
    const id = r.body.server.id;
    const pin = { hostname: 'public.example', ip: '93.184.216.34', port: 443 };
    assert.deepEqual((await t.request('GET', `/api/mcp/${id}`, { token: u.pat })).body.pin, pin);
    for (const url of ['https://mixed.example/mcp', 'https://[::ffff:169.254.169.254]/', 'https://0x7f.1/', 'http://public.example/']) {
      const p = await t.request('PATCH', `/api/mcp/${id}`, { token: u.pat, body: { url } });
      assert.equal(p.status, 400, url);
    }
    const got = await t.request('GET', `/api/mcp/${id}`, { token: u.pat });
    assert.equal(got.body.url, 'https://public.example/mcp');
    assert.deepEqual(got.body.pin, pin);
  });
});
