// Whether a rule is accepted must not depend on how busy the host is (issue 10, defect 2): with every core kept busy
// by other processes, ordinary patterns are saved through PUT /api/mcp/:id/rules and PUT /api/llm/:id/rules, again
// and again, and the catastrophic ones are still refused with the same message.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { insertLlmFixture, insertMcpFixture } from '@tollgate/testkit/fixtures.ts';

let t: TestApp;
let u: TestUser;
const burners: ChildProcess[] = [];

before(async () => {
  t = await startTestApp();
  u = await t.createUser();
  // One spinning process per core and one more: the test's own process competes for every core.
  for (let i = 0; i <= availableParallelism(); i++) {
    burners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
});
after(async () => {
  for (const b of burners) b.kill('SIGKILL');
  await t.close();
});

const ORDINARY = [
  'nomatch-xyz',
  '\\b\\d{16}\\b',
  '\\b(\\d{4})\\d{8}(\\d{4})\\b',
  '\\b\\d{4}-\\d{4}-\\d{4}-(\\d{4})\\b',
  'sk-[A-Za-z0-9]{20,}',
  '[A-Za-z0-9+/]{40,}={0,2}',
  '(?i)secret|password|token',
  '[\\w.+-]+@[\\w-]+\\.[\\w.]+',
  '.{0,500}x',
];

test('ordinary patterns are saved while every core is busy (MCP response_replace, LLM prompt_replace and model_route)', async () => {
  const mcp = await insertMcpFixture(t.app.services, u.userId);
  const llm = await insertLlmFixture(t.app.services, u.userId);
  for (let round = 0; round < 5; round++) {
    const m = await t.request('PUT', `/api/mcp/${mcp.id}/rules`, {
      token: u.pat, body: { rules: ORDINARY.map((pattern) => ({ rule_type: 'response_replace', tools: ['*'], pattern, replacement: '' })) },
    });
    assert.equal(m.status, 200, m.text);
    const l = await t.request('PUT', `/api/llm/${llm.id}/rules`, {
      token: u.pat,
      body: { rules: ORDINARY.flatMap((pattern) => [
        { rule_type: 'prompt_replace', tools: ['*'], pattern, replacement: '' },
        { rule_type: 'model_route', tools: ['*'], pattern, target_model: 'gpt-4o-mini' },
      ]) },
    });
    assert.equal(l.status, 200, l.text);
  }
});

test('with every core busy, the catastrophic patterns are still refused with the same message', async () => {
  const mcp = await insertMcpFixture(t.app.services, u.userId);
  for (const pattern of ['\\d{1,1000}x', '(?:a|aa|aaa|aaaa){1,1000}x']) {
    const r = await t.request('PUT', `/api/mcp/${mcp.id}/rules`, {
      token: u.pat, body: { rules: [{ rule_type: 'response_replace', tools: ['*'], pattern: 'fine', replacement: '' }, { rule_type: 'response_replace', tools: ['*'], pattern, replacement: '' }] },
    });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.error, /^rules\[1\]\.pattern: pattern is too slow on long inputs \(.*; keep counted repetitions of groups small\)$/);
  }
});
