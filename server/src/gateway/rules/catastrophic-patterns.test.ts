// Regexes with catastrophic constants (issue "Hardening", part 2), in every rule type that takes a pattern: counted
// repetitions that blow up RE2's program are refused at PUT, constructs RE2 cannot run (backreferences, lookaround)
// too, and what RE2 accepts runs in linear time on the LLM path as on the MCP path (response_replace has its own
// test in response_replace/handler.test.ts and mcp/rules.test.ts). prompt_guard takes no user pattern: its
// detectors are a fixed catalogue, each checked by regex-cost.test.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RULE_SCHEMAS, RULE_TYPES_BY_KIND, type RuleType } from '@tollgate/contract';
import { createLlmKey, createLlmProxy, putLlmRules, rawLlm, startLlmEnv, type LlmEnv } from '@tollgate/testkit/llm-kit.ts';

/** A valid rule of each pattern-taking type, the pattern left out. A new such type fails the first test until added. */
const BASE: Partial<Record<RuleType, Record<string, unknown>>> = {
  response_replace: { rule_type: 'response_replace', tools: ['*'], replacement: '' },
  prompt_replace: { rule_type: 'prompt_replace', tools: ['*'], replacement: '' },
  model_route: { rule_type: 'model_route', tools: ['*'], target_model: 'gpt-4o-mini' },
};

const TOO_SLOW = /^rules\[0\]\.pattern: pattern is too slow on long inputs \(its counted repetitions expand to \d+ instructions, at most 1200 are allowed; keep counted repetitions of groups small\)$/;

/** [pattern, the message it must get] */
const REFUSED: Array<[string, RegExp]> = [
  ['\\d{1,1000}x', TOO_SLOW],
  ['(?:a|aa|aaa|aaaa){1,1000}x', TOO_SLOW],
  ['.{0,1000}x', TOO_SLOW],
  ['(?:\\d{1,30}){1,30}x', TOO_SLOW],
  ['((a{1,10}){1,10}){1,10}', TOO_SLOW],
  ['\\pL{1,20}x', TOO_SLOW],
  ['[a-z]{1,800}[0-9]{1,800}x', TOO_SLOW],
  ['(?i)(?:[a-z]{2,}\\s){1,500}', TOO_SLOW],
  ['a{1001}', /^rules\[0\]\.pattern: /], // over RE2's own repeat limit
  ['a'.repeat(5000), /^rules\[0\]\.pattern: pattern is longer than 4096 characters$/],
  ['(a)\\1', /^rules\[0\]\.pattern: /],
  ['(?=a)a', /^rules\[0\]\.pattern: /],
  ['(?<!a)b', /^rules\[0\]\.pattern: /],
  ['(?>a+)', /^rules\[0\]\.pattern: /],
  ['a++', /^rules\[0\]\.pattern: /],
];

let e: LlmEnv;
let mcpId: string;
before(async () => {
  e = await startLlmEnv();
  const r = await e.t.request('POST', '/api/mcp', { token: e.user.pat, body: { name: 'm', url: 'http://127.0.0.1:1/mcp' } });
  assert.equal(r.status, 201, r.text);
  mcpId = r.body.server.id;
});
after(async () => { await e.close(); });

const patternTypes = (Object.keys(RULE_SCHEMAS) as RuleType[]).filter((t) => 'pattern' in RULE_SCHEMAS[t].shape);

test('every rule type with a pattern is covered here', () => {
  assert.deepEqual(patternTypes.sort(), Object.keys(BASE).sort());
});

test('catastrophic constants and constructs RE2 cannot run are refused at PUT in every rule type that takes a pattern', async () => {
  const llm = await createLlmProxy(e, 'openai');
  for (const type of patternTypes) {
    const path = RULE_TYPES_BY_KIND.mcp.includes(type) ? `/api/mcp/${mcpId}/rules` : `/api/llm/${llm.id}/rules`;
    for (const [pattern, message] of REFUSED) {
      const r = await e.t.request('PUT', path, { token: e.user.pat, body: { rules: [{ ...BASE[type], pattern }] } });
      assert.equal(r.status, 400, `${type} ${pattern.slice(0, 40)}: ${r.text}`);
      assert.match(r.body.error, message, `${type} ${pattern.slice(0, 40)}`);
    }
    // Exponential for a backtracking engine, linear in RE2; and a counted repetition under the measured cliff.
    for (const pattern of ['(a+)+$', 'x{1000}']) {
      const ok = await e.t.request('PUT', path, { token: e.user.pat, body: { rules: [{ ...BASE[type], pattern }] } });
      assert.equal(ok.status, 200, `${type} ${pattern}: ${ok.text}`);
    }
  }
});

test('patterns that backtrack exponentially elsewhere run in linear time on a large prompt (prompt_replace, model_route)', async () => {
  const p = await createLlmProxy(e, 'openai');
  await putLlmRules(e, p, [
    { rule_type: 'prompt_replace', tools: ['*'], pattern: '(a+)+$', replacement: 'Z' },
    { rule_type: 'prompt_replace', tools: ['*'], pattern: '(a|aa)+c', replacement: 'Z' },
    { rule_type: 'prompt_replace', tools: ['*'], pattern: '^(\\w+\\s?)*$', replacement: 'Z' },
    { rule_type: 'model_route', tools: ['*'], pattern: '(.*a){12}b', target_model: 'routed-model' },
    { rule_type: 'model_route', tools: ['*'], pattern: '(a+)+b', target_model: 'routed-model' },
  ]);
  const key = await createLlmKey(e, p);
  const evil = `${'a'.repeat(500_000)}!`;
  const started = Date.now();
  const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: evil }] }, { authorization: `Bearer ${key.key}` });
  const ms = Date.now() - started;
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.ok(ms < 5000, `the request took ${ms} ms`);
  const sent = e.fakes.openai.last().json as { model: string; messages: Array<{ content: string }> };
  assert.equal(sent.model, 'gpt-4o-mini', 'no model_route pattern matched');
  assert.equal(sent.messages[0]!.content, evil, 'no prompt_replace pattern matched');
});
