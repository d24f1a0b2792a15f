import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROXY_KINDS, RULE_SCHEMAS, RULE_TYPES, RULE_TYPES_BY_KIND, type Rule } from '@tollgate/contract';
import { fakeExchange, fakeWorld } from '@tollgate/testkit/exchange.ts';
import { buildPipeline, type RuleBuilders } from './build.ts';
import { RULE_SERVERS } from './rule-servers.ts';
import { CONTINUE } from './types.ts';
import { runAccessPhases } from './run.ts';

const allow = () => CONTINUE;

test('every rule type a proxy kind accepts has a server on that kind, and no other type does', () => {
  for (const kind of PROXY_KINDS) {
    const servers = RULE_SERVERS[kind] as RuleBuilders;
    for (const type of RULE_TYPES) {
      const valid = RULE_TYPES_BY_KIND[kind].includes(type);
      assert.equal(typeof servers[type] === 'function', valid, `${kind} ${type}: ${valid ? 'valid but not served' : 'served but not valid'}`);
    }
  }
});

const denyTen = RULE_SCHEMAS.ip_acl.parse({ rule_type: 'ip_acl', tools: ['danger'], action: 'deny', cidrs: ['10.0.0.0/8'] }) as Rule;

test('a rule whose type the builders table does not serve denies what it covers with an error event, never skips', async () => {
  const { ip_acl: _left_out, ...withoutIpAcl } = RULE_SERVERS.mcp;
  const w = fakeWorld([denyTen]);
  const p = buildPipeline({ s: w.s, proxy: w.proxy, current: () => w.snapshot }, withoutIpAcl);

  // An address the rule would have allowed is refused too: the gateway cannot tell what the rule would have done.
  for (const ip of ['10.1.2.3', '192.0.2.1']) {
    const v = await runAccessPhases(p, fakeExchange(w, { ip, tools: ['danger'] }), allow);
    assert.ok(v.kind === 'deny', `${ip}: ${v.kind}`);
    assert.equal(v.status, 500);
    assert.equal(v.message, 'Gateway rule error');
    assert.deepEqual(v.event, { type: 'error', ruleName: 'ip_acl#0', details: { reason: 'rule_not_served' } });
  }
  // Fail closed for what the rule covers, not for the whole proxy.
  assert.equal((await runAccessPhases(p, fakeExchange(w, { ip: '10.1.2.3', tools: ['safe'] }), allow)).kind, 'continue');
});

test('a rule type of the other proxy kind (corrupt storage) is denied by the real MCP table', async () => {
  const guard = RULE_SCHEMAS.prompt_guard.parse({ rule_type: 'prompt_guard', tools: ['*'], detectors: ['pi_dan'], action: 'block' }) as Rule;
  const w = fakeWorld([guard]);
  const p = buildPipeline({ s: w.s, proxy: w.proxy, current: () => w.snapshot }, RULE_SERVERS.mcp);
  const v = await runAccessPhases(p, fakeExchange(w, { tools: ['search'] }), allow);
  assert.ok(v.kind === 'deny' && v.event.type === 'error' && v.event.details?.reason === 'rule_not_served', JSON.stringify(v));
});

test('a served rule type still runs its own handler (mcp_resource is served outside the pipeline and blocks nothing)', async () => {
  const resource = RULE_SCHEMAS.mcp_resource.parse({ rule_type: 'mcp_resource', tools: ['*'], resource_id: 'r', uri: 'doc://r', resource_name: 'r', content: 'x' }) as Rule;
  const w = fakeWorld([denyTen, resource]);
  const p = buildPipeline({ s: w.s, proxy: w.proxy, current: () => w.snapshot }, RULE_SERVERS.mcp);
  assert.equal((await runAccessPhases(p, fakeExchange(w, { ip: '192.0.2.1', tools: ['danger'] }), allow)).kind, 'continue');
  const v = await runAccessPhases(p, fakeExchange(w, { ip: '10.1.2.3', tools: ['danger'] }), allow);
  assert.ok(v.kind === 'deny' && v.status === 403 && v.event.type === 'ip_blocked', JSON.stringify(v));
});
