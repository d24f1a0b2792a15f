// Address and CIDR parsing shared by the SSRF guard, ip_acl rules (checked at plan time too) and TOLLGATE_UPSTREAM_ALLOW_CIDRS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { cidrContains, formatIp, isV4Mapped, parseCidr, parseIp } from './cidr.ts';

const ip = (s: string) => {
  const b = parseIp(s);
  assert.ok(b, `${s} should parse`);
  return b;
};

test('IPv4 is stored IPv4-mapped, so v4 and its ::ffff: form are the same address', () => {
  assert.deepEqual(ip('10.1.2.3'), ip('::ffff:10.1.2.3'));
  assert.deepEqual(ip('10.1.2.3'), ip('::ffff:a01:203'));
  assert.ok(isV4Mapped(ip('10.1.2.3')));
  assert.ok(!isV4Mapped(ip('::1')));
  assert.equal(formatIp(ip('::ffff:10.1.2.3')), '10.1.2.3');
});

test('malformed and ambiguous addresses do not parse', () => {
  for (const bad of ['', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1.2.3.-1', '01.2.3.4', '010.0.0.1', '1.2.3.04', '0x7f.0.0.1', '1:2:3', '::g', '1::2::3', 'example.com', '[::1', '1.2.3.4/8']) {
    assert.equal(parseIp(bad), undefined, bad);
  }
});

test('brackets and zone ids are accepted on IPv6', () => {
  assert.deepEqual(ip('[::1]'), ip('::1'));
  assert.deepEqual(ip('fe80::1%eth0'), ip('fe80::1'));
});

test('formatIp writes RFC 5952 text: lower case, longest zero run compressed, first on a tie', () => {
  const cases: Array<[string, string]> = [
    ['0:0:0:0:0:0:0:1', '::1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:0:0:2:0:0:3:4', '1::2:0:0:3:4'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['fe80:0:0:0:0:0:0:0', 'fe80::'],
    ['::7f00:1', '::7f00:1'],
  ];
  for (const [input, out] of cases) assert.equal(formatIp(ip(input)), out, input);
});

test('parseCidr takes a prefix or a bare address (/32, /128) and rejects bad prefixes', () => {
  assert.equal(parseCidr('10.0.0.0/8')!.prefix, 96 + 8);
  assert.equal(parseCidr('10.0.0.1')!.prefix, 128);
  assert.equal(parseCidr('2001:db8::/32')!.prefix, 32);
  assert.equal(parseCidr('::1')!.prefix, 128);
  for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/x', '10.0.0.0/-1', 'nope/8']) assert.equal(parseCidr(bad), undefined, bad);
});

test('cidrContains matches on the prefix bits only, v4 and v6', () => {
  const within = (c: string, a: string) => cidrContains(parseCidr(c)!, ip(a));
  assert.ok(within('10.0.0.0/8', '10.255.255.255'));
  assert.ok(!within('10.0.0.0/8', '11.0.0.0'));
  assert.ok(within('172.16.0.0/12', '172.31.0.1'));
  assert.ok(!within('172.16.0.0/12', '172.32.0.1'));
  assert.ok(within('10.1.2.3/8', '10.9.9.9'), 'host bits of the range are ignored');
  assert.ok(within('0.0.0.0/0', '203.0.113.9'));
  assert.ok(!within('0.0.0.0/0', '2001:db8::1'), 'an IPv4 range never matches a native IPv6 address');
  assert.ok(within('::/0', '2001:db8::1'));
  assert.ok(within('fe80::/10', 'febf::1'));
  assert.ok(!within('fe80::/10', 'fec0::1'));
  assert.ok(within('192.168.1.7', '192.168.1.7'));
  assert.ok(!within('192.168.1.7', '192.168.1.8'));
  assert.ok(within('127.0.0.0/8', '::ffff:127.0.0.1'));
});


test('IPv6 syntax is judged as node:net judges it (the contract is pure, so it cannot call isIP)', () => {
  const corpus = [
    '::', '::1', '1::', '1::8', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1:2:3:4:5:6::8', 'fe80::1',
    '2001:db8::', '2001:DB8:0:0:0:0:0:1', '::ffff:1.2.3.4', '64:ff9b::192.0.2.33', '1:2:3:4:5:6:1.2.3.4',
    '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', ':1:2:3:4:5:6:7', '1:2:3:4:5:6:7:', '1::2::3', ':::', '1:::2', '12345::',
    'g::1', '1::2:3:4:5:6:7:8', '::1.2.3', '1:2:3:4:5:6:7:1.2.3.4', '::ffff:1.2.3.256', '1.2.3.4::', '',
  ];
  for (const s of corpus) assert.equal(parseIp(s) !== undefined, isIP(s) === 6, s);
});
