import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeExchange, fakeWorld } from '@tollgate/testkit/exchange.ts';
import type { Verdict } from '../../pipeline/types.ts';
import { ipAclSchema } from '@tollgate/contract';
import { buildIpAcl } from './handler.ts';

function gate(rules: Array<Record<string, unknown>>) {
  const entries = rules.map((r, index) => ({ rule: ipAclSchema.parse({ rule_type: 'ip_acl', tools: ['*'], ...r }), index }));
  const [h] = buildIpAcl(entries);
  const w = fakeWorld();
  return (ip: string, tools: string[] = []) => h!.network!(fakeExchange(w, { ip, tools })) as Verdict;
}

test('deny lists block only the listed addresses (v4, v6, CIDR, bare address)', () => {
  const check = gate([{ action: 'deny', cidrs: ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'] }]);
  assert.equal(check('10.1.2.3').kind, 'deny');
  assert.equal(check('2001:db8::1').kind, 'deny');
  assert.equal(check('192.0.2.7').kind, 'deny');
  assert.equal(check('192.0.2.8').kind, 'continue');
  assert.equal(check('2001:db9::1').kind, 'continue');
  const v = check('10.1.2.3');
  assert.ok(v.kind === 'deny' && v.status === 403 && v.event.type === 'ip_blocked' && v.event.ruleName === 'ip_acl#0');
});

test('an allow list is default-deny; the first matching rule wins', () => {
  assert.equal(gate([{ action: 'allow', cidrs: ['10.0.0.0/8'] }])('11.0.0.1').kind, 'deny');
  assert.equal(gate([{ action: 'allow', cidrs: ['10.0.0.0/8'] }])('10.0.0.1').kind, 'continue');
  const denyFirst = gate([{ action: 'deny', cidrs: ['10.0.0.1'] }, { action: 'allow', cidrs: ['10.0.0.0/8'] }]);
  assert.equal(denyFirst('10.0.0.1').kind, 'deny');
  assert.equal(denyFirst('10.0.0.2').kind, 'continue');
  const allowFirst = gate([{ action: 'allow', cidrs: ['10.0.0.1'] }, { action: 'deny', cidrs: ['10.0.0.0/8'] }]);
  assert.equal(allowFirst('10.0.0.1').kind, 'continue');
  assert.equal(allowFirst('10.0.0.2').kind, 'deny');
});

test('rules apply only to requests touching their tools', () => {
  const check = gate([{ action: 'deny', cidrs: ['0.0.0.0/0', '::/0'], tools: ['danger'] }]);
  assert.equal(check('1.2.3.4', ['danger']).kind, 'deny');
  assert.equal(check('1.2.3.4', ['safe']).kind, 'continue');
  assert.equal(check('1.2.3.4', []).kind, 'continue');
  const allow = gate([{ action: 'allow', cidrs: ['10.0.0.0/8'], tools: ['danger'] }]);
  assert.equal(allow('1.2.3.4', ['safe']).kind, 'continue', 'an allow list for other tools does not default-deny this one');
});
