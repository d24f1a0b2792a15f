// The special-purpose ranges the SSRF guard refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIp } from '@tollgate/contract';
import { blockedRange } from './ip-ranges.ts';

const ip = (s: string) => {
  const b = parseIp(s);
  assert.ok(b, `${s} should parse`);
  return b;
};

test('blockedRange names the special-purpose range, and public unicast is undefined', () => {
  assert.equal(blockedRange(ip('8.8.8.8')), undefined);
  assert.equal(blockedRange(ip('2606:4700:4700::1111')), undefined);
  assert.equal(blockedRange(ip('::ffff:8.8.8.8')), undefined);
  assert.equal(blockedRange(ip('192.168.0.1')), 'private');
  assert.equal(blockedRange(ip('::ffff:192.168.0.1')), 'private');
  assert.equal(blockedRange(ip('::8.8.8.8')), 'IPv4-compatible IPv6');
  assert.equal(blockedRange(ip('4000::1')), 'non-global-unicast IPv6');
  assert.equal(blockedRange(ip('::')), 'unspecified');
});
