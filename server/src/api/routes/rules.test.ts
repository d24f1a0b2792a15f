// Firewall rules through the HTTP API: GET/PUT on MCP servers and LLM proxies, every rule type with valid and
// invalid examples, the proxy-kind mismatch, atomic replacement, and tenant isolation.
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { createGatewayObjects } from '../../proxies/gateway-objects.ts';

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

async function createMcp(u: TestUser): Promise<string> {
  const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'm', url: 'http://127.0.0.1:9/mcp' } });
  assert.equal(r.status, 201, r.text);
  return r.body.server.id;
}

/** An LLM proxy row with its gateway objects, written directly so these tests do not depend on POST /api/llm. */
async function createLlm(u: TestUser): Promise<string> {
  const id = randomUUID();
  const s = t.app.services;
  const version = await s.db.tx(async (q) => {
    await q.query('INSERT INTO llm_proxies (id, user_id, name, provider, created_at) VALUES ($1, $2, $3, $4, $5)', [id, u.userId, 'l', 'openai', 1]);
    return createGatewayObjects(q, { proxyId: id, kind: 'llm', userId: u.userId, upstreamUrl: 'https://api.openai.com', auth: null, proxyDomain: s.config.proxyDomain, nowS: 1 });
  });
  await s.configChanged(version);
  return id;
}

const gatewayRules = (id: string) => t.app.gateway!.store.current.proxies.get(id)?.rules;

const common = { tools: ['*'] };
const VALID = {
  ip_acl: { rule_type: 'ip_acl', ...common, action: 'deny', cidrs: ['203.0.113.7', '2001:db8::/32', '10.0.0.0/8'] },
  rate_limit: { rule_type: 'rate_limit', ...common, name: 'per-key', match_key: 'api_key', threshold: 60, timespan: 60 },
  rate_limit_ban: { rule_type: 'rate_limit', tools: ['echo'], name: 'ban-ip', match_key: 'ip', threshold: 5, timespan: 10, dryrun: true, reset_expire_on_hit: true, ban_after_n_exceeded: 3, ban_timespan: 600 },
  tokens: { rule_type: 'rate_limit', ...common, name: 'tpm', match_key: 'tokens_per_minute', threshold: 10000, timespan: 60 },
  tool_description_inject: { rule_type: 'tool_description_inject', ...common, inject_text: 'Never reveal secrets.', inject_position: 'append' },
  response_replace: { rule_type: 'response_replace', tools: ['echo'], pattern: '\\b\\d{16}\\b', replacement: '[card]', regex_flags: 'i', dlp_rule_id: 'dlp-cards' },
  lambda_access: { rule_type: 'lambda', ...common, phase: 'access', name: 'gate', lua_code: 'if svc.context.tool_name == "x" then svc.response.exit(403, "no") end' },
  lambda_response: { rule_type: 'lambda', ...common, phase: 'response', name: 'post', lua_code: 'svc.log.info("hi")' },
  static_cache: { rule_type: 'static_cache', tools: ['echo'], cache_ttl: 300 },
  mcp_resource: { rule_type: 'mcp_resource', ...common, resource_id: 'r1', uri: 'doc://r1', resource_name: 'R1', content: 'hello', expose_as_tool: true, tool_name: 'get_r1' },
  prompt_replace: { rule_type: 'prompt_replace', ...common, pattern: 'secret-\\w+', replacement: '[redacted]' },
  prompt_guard: { rule_type: 'prompt_guard', ...common, detectors: ['pi_ignore_previous', 'pi_dan'], action: 'block' },
  model_route: { rule_type: 'model_route', ...common, pattern: '^translate', regex_flags: 'i', target_model: 'gpt-4o-mini' },
} as const;

describe('MCP proxies', () => {
  test('every MCP rule type is accepted, stored in order with defaults, returned by GET and given to the gateway', async () => {
    const u = await t.createUser();
    const id = await createMcp(u);
    const rules = [VALID.ip_acl, VALID.rate_limit, VALID.rate_limit_ban, VALID.tool_description_inject, VALID.response_replace,
      VALID.lambda_access, VALID.lambda_response, VALID.static_cache, VALID.mcp_resource];
    const r = await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, body: { rules } });
    assert.equal(r.status, 200, r.text);
    const stored = r.body.rules;
    assert.deepEqual(stored.map((x: { rule_type: string }) => x.rule_type), rules.map((x) => x.rule_type));
    // Defaults are filled in: enabled, dryrun, bans, regex flags, cache isolation, resource fields.
    assert.deepEqual(stored[0], { ...VALID.ip_acl, enabled: true });
    assert.deepEqual(stored[1], { ...VALID.rate_limit, enabled: true, dryrun: false, reset_expire_on_hit: false, ban_after_n_exceeded: null, ban_timespan: null });
    assert.deepEqual(stored[2], { ...VALID.rate_limit_ban, enabled: true });
    assert.deepEqual(stored[7], { ...VALID.static_cache, enabled: true, cache_isolation: 'per_identity', cache_identity_claims: ['iss', 'sub'] });
    assert.equal(stored[8].mime_type, 'text/plain');
    const g = await t.request('GET', `/api/mcp/${id}/rules`, { token: u.pat });
    assert.deepEqual([g.status, g.body], [200, { rules: stored }]);
    assert.deepEqual(gatewayRules(id), stored);
  });

  test('a new proxy has no rules; PUT [] clears them', async () => {
    const u = await t.createUser();
    const id = await createMcp(u);
    assert.deepEqual((await t.request('GET', `/api/mcp/${id}/rules`, { token: u.pat })).body, { rules: [] });
    await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, body: { rules: [VALID.ip_acl] } });
    const r = await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, body: { rules: [] } });
    assert.deepEqual([r.status, r.body], [200, { rules: [] }]);
    assert.deepEqual(gatewayRules(id), []);
  });

  test('invalid rules: 400 naming the rule index and field, and the stored rules stay as they were', async () => {
    const u = await t.createUser();
    const id = await createMcp(u);
    const before = (await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, body: { rules: [VALID.ip_acl, VALID.static_cache] } })).body.rules;
    const ok = VALID.ip_acl;
    const cases: Array<[unknown[], string | RegExp]> = [
      [[ok, { ...VALID.ip_acl, cidrs: ['10.0.0.0/33'] }], 'rules[1].cidrs[0]: must be an IPv4 or IPv6 address or CIDR'],
      [[{ ...VALID.ip_acl, action: 'maybe' }], 'rules[0].action: Invalid option: expected one of "allow"|"deny"'],
      [[{ ...VALID.ip_acl, tools: [] }], 'rules[0].tools: must list tool names or ["*"]'],
      [[{ rule_type: 'ip_acl', action: 'allow', cidrs: ['1.2.3.4'] }], 'rules[0].tools: Invalid input: expected array, received undefined'],
      [[ok, ok, { ...VALID.rate_limit, name: 'bad name' }], 'rules[2].name: use letters, numbers, - and _ only'],
      [[{ ...VALID.rate_limit, threshold: 0 }], 'rules[0].threshold: Too small: expected number to be >0'],
      [[{ ...VALID.rate_limit, ban_after_n_exceeded: 3 }], 'rules[0].ban_timespan: ban_after_n_exceeded and ban_timespan must be set together'],
      [[VALID.rate_limit, VALID.rate_limit], 'rules[1].name: rate_limit name "per-key" is already used on this proxy'],
      [[{ ...VALID.tool_description_inject, inject_position: 'middle' }], 'rules[0].inject_position: Invalid option: expected one of "prepend"|"append"'],
      [[{ ...VALID.response_replace, pattern: '(a)\\1' }], /^rules\[0\]\.pattern: invalid or unsupported regular expression/],
      [[{ ...VALID.response_replace, pattern: '(?<=x)y' }], /^rules\[0\]\.pattern: invalid or unsupported regular expression/],
      // Linear in RE2 but with a huge constant (~33 µs per input byte): refused at save time.
      [[{ ...VALID.response_replace, pattern: '(?:a|aa|aaa|aaaa){1,1000}x' }], 'rules[0].pattern: pattern is too slow on long inputs (its counted repetitions expand to 13999 instructions, at most 1200 are allowed; keep counted repetitions of groups small)'],
      [[{ ...VALID.response_replace, regex_flags: 'g' }], 'rules[0].regex_flags: only the flags i, s and m are supported'],
      [[{ ...VALID.lambda_access, phase: 'later' }], 'rules[0].phase: Invalid option: expected one of "access"|"response"'],
      [[{ ...VALID.lambda_access, lua_code: '' }], /^rules\[0\]\.lua_code: /],
      [[{ ...VALID.static_cache, cache_ttl: 59 }], 'rules[0].cache_ttl: must be at least 60'],
      [[{ ...VALID.static_cache, cache_ttl: 86401 }], 'rules[0].cache_ttl: must be at most 86400'],
      [[{ ...VALID.static_cache, cache_isolation: 'global' }], 'rules[0].cache_isolation: Invalid option: expected one of "per_identity"|"shared"'],
      [[{ ...VALID.mcp_resource, tool_name: undefined }], 'rules[0].tool_name: is required when expose_as_tool is true'],
      [[{ ...VALID.tokens }], 'rules[0].match_key: tokens_per_minute is LLM-only (rule index 0)'],
      [[ok, VALID.prompt_guard], 'rules[1].rule_type: prompt_guard is not valid on MCP proxies (rule index 1)'],
      [[VALID.prompt_replace], 'rules[0].rule_type: prompt_replace is not valid on MCP proxies (rule index 0)'],
      [[VALID.model_route], 'rules[0].rule_type: model_route is not valid on MCP proxies (rule index 0)'],
      [[{ rule_type: 'waf', tools: ['*'] }], 'rules[0].rule_type: must be one of ip_acl, lambda, mcp_resource, rate_limit, response_replace, static_cache, tool_description_inject'],
      [[ok, null], /^rules\[1\]\.rule_type: must be one of /],
      [['ip_acl'], /^rules\[0\]\.rule_type: must be one of /],
    ];
    for (const [rules, msg] of cases) {
      const r = await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, body: { rules } });
      assert.equal(r.status, 400, JSON.stringify(rules));
      if (typeof msg === 'string') assert.deepEqual(r.body, { error: msg });
      else assert.match(r.body.error, msg);
    }
    assert.deepEqual((await t.request('GET', `/api/mcp/${id}/rules`, { token: u.pat })).body, { rules: before });
    assert.deepEqual(gatewayRules(id), before);
  });

  test('a body without a rules array: 400; a body that is not JSON: 400 Invalid JSON body', async () => {
    const u = await t.createUser();
    const id = await createMcp(u);
    for (const body of [{}, { rules: {} }, { rules: 'ip_acl' }, { rules: null }, [VALID.ip_acl], 'x']) {
      const r = await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, body });
      assert.deepEqual([r.status, r.body], [400, { error: 'rules: must be an array of rules' }], JSON.stringify(body));
    }
    const bad = await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, raw: '{"rules": [', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'Invalid JSON body' }]);
    const noType = await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, raw: '{"rules": []}' });
    assert.deepEqual([noType.status, noType.body], [400, { error: 'Invalid JSON body' }]);
  });
});

describe('LLM proxies', () => {
  test('every LLM rule type is accepted and stored', async () => {
    const u = await t.createUser();
    const id = await createLlm(u);
    const rules = [VALID.ip_acl, VALID.rate_limit, VALID.tokens, VALID.prompt_replace, VALID.prompt_guard, VALID.model_route,
      VALID.lambda_access, { ...VALID.static_cache, tools: ['*'] }];
    const r = await t.request('PUT', `/api/llm/${id}/rules`, { token: u.pat, body: { rules } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.rules.map((x: { rule_type: string }) => x.rule_type), rules.map((x) => x.rule_type));
    assert.deepEqual(r.body.rules[4], { ...VALID.prompt_guard, enabled: true, mode: 'regex', phase: 'request', rewrite_template: '' });
    assert.deepEqual(r.body.rules[3], { ...VALID.prompt_replace, enabled: true, regex_flags: '' });
    const g = await t.request('GET', `/api/llm/${id}/rules`, { token: u.pat });
    assert.deepEqual([g.status, g.body], [200, { rules: r.body.rules }]);
    assert.deepEqual(gatewayRules(id), r.body.rules);
  });

  test('MCP-only rules and invalid LLM rules: 400 naming the index; nothing changes', async () => {
    const u = await t.createUser();
    const id = await createLlm(u);
    const stored = (await t.request('PUT', `/api/llm/${id}/rules`, { token: u.pat, body: { rules: [VALID.model_route] } })).body.rules;
    const cases: Array<[unknown[], string | RegExp]> = [
      [[VALID.response_replace], 'rules[0].rule_type: response_replace is not valid on LLM proxies (rule index 0)'],
      [[VALID.ip_acl, VALID.tool_description_inject], 'rules[1].rule_type: tool_description_inject is not valid on LLM proxies (rule index 1)'],
      [[VALID.mcp_resource], 'rules[0].rule_type: mcp_resource is not valid on LLM proxies (rule index 0)'],
      [[VALID.lambda_access, VALID.lambda_response], 'rules[1].phase: lambda phase response is MCP-only (rule index 1)'],
      [[{ ...VALID.prompt_guard, detectors: ['nope'] }], /^rules\[0\]\.detectors\[0\]: Invalid option: expected one of "pi_ignore_previous"/],
      [[{ ...VALID.prompt_guard, detectors: [] }], /^rules\[0\]\.detectors: /],
      [[{ ...VALID.prompt_guard, action: 'explode' }], 'rules[0].action: Invalid option: expected one of "block"|"rewrite"|"alert"'],
      [[{ ...VALID.prompt_guard, phase: 'later' }], 'rules[0].phase: Invalid option: expected one of "request"|"response"'],
      [[{ ...VALID.model_route, pattern: '(?=x)' }], /^rules\[0\]\.pattern: invalid or unsupported regular expression/],
      [[{ ...VALID.prompt_replace, pattern: '(?:z|zz|zzz|zzzz){1,1000}q' }], /^rules\[0\]\.pattern: pattern is too slow on long inputs/],
      [[{ ...VALID.model_route, target_model: undefined }], 'rules[0].target_model: Invalid input: expected string, received undefined'],
      [[{ ...VALID.prompt_replace, pattern: '' }], 'rules[0].pattern: Too small: expected string to have >=1 characters'],
      [[{ ...VALID.prompt_replace, regex_flags: 'x' }], 'rules[0].regex_flags: only the flags i, s and m are supported'],
      [[{ rule_type: 'nope', tools: ['*'] }], 'rules[0].rule_type: must be one of ip_acl, lambda, model_route, prompt_guard, prompt_replace, rate_limit, static_cache'],
      // A tool scope would never match an LLM request: refused instead of stored as a rule that silently never runs.
      [[VALID.model_route, { ...VALID.prompt_guard, tools: ['chat'] }], 'rules[1].tools: must be ["*"] on LLM proxies (rule index 1)'],
      [[{ ...VALID.ip_acl, tools: ['*', 'x'] }], 'rules[0].tools: must be ["*"] on LLM proxies (rule index 0)'],
    ];
    for (const [rules, msg] of cases) {
      const r = await t.request('PUT', `/api/llm/${id}/rules`, { token: u.pat, body: { rules } });
      assert.equal(r.status, 400, JSON.stringify(rules));
      if (typeof msg === 'string') assert.deepEqual(r.body, { error: msg });
      else assert.match(r.body.error, msg);
    }
    assert.deepEqual((await t.request('GET', `/api/llm/${id}/rules`, { token: u.pat })).body, { rules: stored });
    assert.deepEqual(gatewayRules(id), stored);
  });
});

describe('caps on a proxy\'s rules', () => {
  const lambdas = (n: number, enabled = true) => Array.from({ length: n }, (_, i) => ({ ...VALID.lambda_access, name: `l${i}`, enabled }));
  const ruleLimit = (n: number) => ({ error: `rules: rule limit reached (${n}/100). A proxy holds at most 100 rules.` });
  const lambdaLimit = (n: number) => ({ error: `rules: lambda limit reached (${n}/20). A proxy holds at most 20 lambda rules.` });

  for (const kind of ['mcp', 'llm'] as const) {
    test(`${kind}: 100 rules and 20 lambdas are stored; one more of either is a 400 naming the limit, and nothing changes`, async () => {
      const u = await t.createUser();
      const id = kind === 'mcp' ? await createMcp(u) : await createLlm(u);
      const put = (rules: unknown[]) => t.request('PUT', `/api/${kind}/${id}/rules`, { token: u.pat, body: { rules } });
      const full = [...lambdas(20), ...Array.from({ length: 80 }, () => VALID.ip_acl)];
      const ok = await put(full);
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.rules.length, 100);

      const over = await put([...full, VALID.ip_acl]);
      assert.deepEqual([over.status, over.body], [400, ruleLimit(101)]);
      // The tenant of the issue: 5000 rules are refused before any of them is parsed.
      assert.deepEqual((await put(Array.from({ length: 5000 }, () => VALID.ip_acl))).body, ruleLimit(5000));
      assert.deepEqual((await put(lambdas(21))).body, lambdaLimit(21));
      // A disabled lambda still counts: enabling it is one click away, and every gateway compiles it.
      const r = await put([...lambdas(20), ...lambdas(1, false)]);
      assert.deepEqual([r.status, r.body], [400, lambdaLimit(21)]);

      assert.deepEqual((await t.request('GET', `/api/${kind}/${id}/rules`, { token: u.pat })).body, { rules: ok.body.rules });
      assert.deepEqual(gatewayRules(id), ok.body.rules);
    });
  }
});

test('tenant isolation: another user, a malformed id, or the other kind\'s id is a 404', async () => {
  const a = await t.createUser();
  const b = await t.createUser();
  const mcp = await createMcp(a);
  const llm = await createLlm(a);
  await t.request('PUT', `/api/mcp/${mcp}/rules`, { token: a.pat, body: { rules: [VALID.ip_acl] } });
  await t.request('PUT', `/api/llm/${llm}/rules`, { token: a.pat, body: { rules: [VALID.model_route] } });
  const cases: Array<[string, string, string]> = [
    ['mcp', mcp, 'MCP server not found'], ['mcp', 'nope', 'MCP server not found'], ['mcp', randomUUID(), 'MCP server not found'],
    ['llm', llm, 'LLM proxy not found'], ['llm', 'nope', 'LLM proxy not found'], ['llm', randomUUID(), 'LLM proxy not found'],
  ];
  for (const [kind, id, error] of cases) {
    for (const method of ['GET', 'PUT']) {
      const r = await t.request(method, `/api/${kind}/${id}/rules`, { token: b.pat, body: method === 'PUT' ? { rules: [] } : undefined });
      assert.deepEqual([r.status, r.body], [404, { error }], `${method} ${kind} ${id}`);
    }
  }
  // The owner's ids do not cross kinds.
  const cross1 = await t.request('GET', `/api/llm/${mcp}/rules`, { token: a.pat });
  assert.deepEqual([cross1.status, cross1.body], [404, { error: 'LLM proxy not found' }]);
  const cross2 = await t.request('PUT', `/api/mcp/${llm}/rules`, { token: a.pat, body: { rules: [] } });
  assert.deepEqual([cross2.status, cross2.body], [404, { error: 'MCP server not found' }]);
  assert.equal(gatewayRules(mcp)?.length, 1);
  assert.equal(gatewayRules(llm)?.length, 1);
});
