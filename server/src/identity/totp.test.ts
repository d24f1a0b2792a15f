import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpAt, totpStep } from './totp.ts';

const RFC_KEY = Buffer.from('12345678901234567890'); // the SHA-1 seed of RFC 4226 and RFC 6238

test('HOTP matches the RFC 4226 appendix D values', () => {
  const want = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  assert.deepEqual(want.map((_, i) => hotp(RFC_KEY, i)), want);
});

test('TOTP matches the RFC 6238 appendix B SHA-1 values (8 digits) and their 6-digit form', () => {
  const table: Array<[number, string]> = [
    [59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'],
    [1234567890, '89005924'], [2000000000, '69279037'], [20000000000, '65353130'],
  ];
  for (const [t, code] of table) {
    assert.equal(totpAt(RFC_KEY, t, 8), code, `T=${t}`);
    assert.equal(totpAt(RFC_KEY, t), code.slice(2), `T=${t} (6 digits)`);
  }
});

test('base32 follows RFC 4648 and round-trips', () => {
  assert.equal(base32Encode(RFC_KEY), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
  assert.deepEqual(base32Decode('mzxw6ytboi======'), Buffer.from('foobar'));
  for (let n = 0; n < 40; n++) {
    const b = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) & 255));
    assert.deepEqual(base32Decode(base32Encode(b)), b);
  }
  assert.throws(() => base32Decode('ABC1'));
});

test('a code is accepted one step either side of now and not two', () => {
  const now = 1_700_000_000;
  const step = totpStep(now);
  assert.equal(matchTotp(RFC_KEY, totpAt(RFC_KEY, now), now), step);
  assert.equal(matchTotp(RFC_KEY, totpAt(RFC_KEY, now - 30), now), step - 1);
  assert.equal(matchTotp(RFC_KEY, totpAt(RFC_KEY, now + 30), now), step + 1);
  assert.equal(matchTotp(RFC_KEY, totpAt(RFC_KEY, now - 60), now), undefined);
  assert.equal(matchTotp(RFC_KEY, totpAt(RFC_KEY, now + 60), now), undefined);
  assert.equal(matchTotp(RFC_KEY, '12345', now), undefined);
});

test('the otpauth URI names issuer, account and the parameters', () => {
  const u = new URL(otpauthUri({ secretBase32: 'ABCD', account: 'a+b@example.test', issuer: 'Tollgate' }));
  assert.equal(u.protocol, 'otpauth:');
  assert.equal(u.host, 'totp');
  assert.equal(decodeURIComponent(u.pathname), '/Tollgate:a+b@example.test');
  assert.equal(u.searchParams.get('secret'), 'ABCD');
  assert.equal(u.searchParams.get('issuer'), 'Tollgate');
  assert.equal(u.searchParams.get('algorithm'), 'SHA1');
  assert.equal(u.searchParams.get('digits'), '6');
  assert.equal(u.searchParams.get('period'), '30');
});
