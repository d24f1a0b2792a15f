import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildKeyTags, customTagProblem, findNameTag, nameTag, parseKeyTags, reservedNamespaceOf } from './tags.ts';

const M = '11111111-1111-4111-8111-111111111111';
const L = '22222222-2222-4222-8222-222222222222';

test('a key with no permissions carries only its name tag', () => {
  assert.deepEqual(buildKeyTags(nameTag('ci'), [], [], []), ['name:ci']);
});

test('MCP grants add the generic flag, then one tag per tool and resource', () => {
  const tags = buildKeyTags(nameTag('k'), [{ id: M, tools: ['search', 'fetch'], resources: ['r1'] }], [], []);
  assert.deepEqual(tags, ['name:k', 'private:permissions:mcp', `mcp:${M}:tool:search`, `mcp:${M}:tool:fetch`, `mcp:${M}:resource:r1`]);
});

test('["*"] and any list containing * collapse to the wildcard tag', () => {
  const tags = buildKeyTags(nameTag('k'), [{ id: M, tools: ['search', '*'], resources: ['*'] }], [{ id: L, models: ['*', 'gpt-4o'] }], []);
  assert.deepEqual(tags, ['name:k', 'private:permissions:mcp', `mcp:${M}:tool:*`, `mcp:${M}:resource:*`, `llm:${L}:model:*`]);
});

test('an MCP grant that reaches nothing adds no flag', () => {
  assert.deepEqual(buildKeyTags(nameTag('k'), [{ id: M, tools: [], resources: [] }], [], []), ['name:k']);
});

test('LLM-only keys get model tags and no MCP flag; custom tags come last; duplicates are dropped', () => {
  const tags = buildKeyTags(nameTag('k'), [], [{ id: L, models: ['gpt-4o', 'ft:gpt-4o:org:x'] }, { id: L, models: ['gpt-4o'] }], ['team-a', 'team-a']);
  assert.deepEqual(tags, ['name:k', `llm:${L}:model:gpt-4o`, `llm:${L}:model:ft:gpt-4o:org:x`, 'team-a']);
});

test('findNameTag returns the stored name tag, or undefined for a legacy key', () => {
  assert.equal(findNameTag(['x', 'name:abc', 'name:def']), 'name:abc');
  assert.equal(findNameTag(['x', 'name:']), undefined);
  assert.equal(findNameTag([]), undefined);
});

test('reserved namespaces are recognised case-insensitively and after trimming', () => {
  for (const t of ['svc:personal:token', 'private:permissions:mcp', 'name:x', `mcp:${M}:tool:*`, `llm:${L}:model:*`, 'MCP:x', ' llm:x', 'Private:x']) {
    assert.ok(reservedNamespaceOf(t), t);
  }
  for (const t of ['team-a', 'env:prod', 'mcpx', 'llm', 'names:x']) assert.equal(reservedNamespaceOf(t), undefined, t);
});

test('customTagProblem refuses reserved namespaces and control characters', () => {
  assert.equal(customTagProblem('team-a'), undefined);
  assert.equal(customTagProblem('env:prod'), undefined);
  assert.match(customTagProblem(`mcp:${M}:tool:*`) ?? '', /^the "mcp:" namespace is reserved/);
  assert.equal(customTagProblem('a\nb'), 'must not contain control characters');
});

test('parseKeyTags reads back what buildKeyTags wrote, model ids with colons included', () => {
  const mcp = [{ id: M, tools: ['search', 'fetch'], resources: ['*'] }];
  const llm = [{ id: L, models: ['gpt-4o', 'ft:gpt-4o:org:x'] }];
  const parsed = parseKeyTags(buildKeyTags(nameTag('bot'), mcp, llm, ['team-a']));
  assert.deepEqual(parsed, { name: 'bot', mcpPermissions: mcp, llmPermissions: llm, customTags: ['team-a'] });
});

test('parseKeyTags drops the PAT marker and the MCP flag, and keeps unknown plain tags as custom', () => {
  const parsed = parseKeyTags(['svc:personal:token', 'name:x', 'private:permissions:mcp', 'env:prod']);
  assert.deepEqual(parsed, { name: 'x', mcpPermissions: [], llmPermissions: [], customTags: ['env:prod'] });
});
