import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../http/errors.ts';
import { editConsumerTags } from '../identity/consumer-tags.ts';
import { checkQuota, quotaLimit, quotaMessage } from './quota.ts';

test('the key limit defaults to 40 and follows private:permissions:apikey:limit:N', () => {
  assert.equal(quotaLimit('apiKey', []), 40);
  assert.equal(quotaLimit('apiKey', ['private:permissions:user', 'private:permissions:apikey:limit:3']), 3);
  assert.equal(quotaLimit('apiKey', ['private:permissions:apikey:limit:0']), 0);
  assert.equal(quotaLimit('apiKey', ['private:permissions:apikey:limit:abc']), 40);
});

test('the MCP and resource limits follow their own tags', () => {
  const tags = ['private:permissions:mcp:limit:7', 'private:permissions:resource:limit:9'];
  assert.equal(quotaLimit('mcp', tags), 7);
  assert.equal(quotaLimit('resource', tags), 9);
  assert.equal(quotaLimit('apiKey', tags), 40);
});

test('the LLM proxy limit defaults to 10 and follows private:permissions:llm:limit:N, apart from the MCP one', () => {
  assert.equal(quotaLimit('llm', []), 10);
  assert.equal(quotaLimit('llm', ['private:permissions:llm:limit:4', 'private:permissions:mcp:limit:7']), 4);
  assert.equal(quotaLimit('mcp', ['private:permissions:llm:limit:4']), 10);
  assert.equal(quotaLimit('llm', ['private:permissions:llm:max_resp_body_kb:64']), 10);
  assert.equal(quotaMessage('llm', 10, 10), 'LLM proxy limit reached (10/10). Contact an administrator to raise your quota.');
  // The admin CLI (`tollgate admin user tags`) knows the tag: it accepts it and keeps one value.
  const tags = editConsumerTags(['private:permissions:user', 'private:permissions:llm:limit:4'], ['private:permissions:llm:limit:25'], []);
  assert.deepEqual(tags, ['private:permissions:user', 'private:permissions:llm:limit:25']);
  assert.equal(quotaLimit('llm', tags), 25);
});

test('the quota messages have the spec wording with count and limit', () => {
  assert.equal(quotaMessage('apiKey', 2, 2), 'API key limit reached (2/2). Contact an administrator to raise your quota.');
  assert.equal(quotaMessage('mcp', 10, 10), 'MCP limit reached (10/10). Contact an administrator to raise your quota.');
  assert.equal(quotaMessage('resource', 3, 2), 'Resource limit reached (3/2). Contact an administrator to raise your quota.');
});

test('one more key is allowed below the limit and refused at it', () => {
  const tags = ['private:permissions:apikey:limit:2'];
  assert.doesNotThrow(() => checkQuota('apiKey', 1, tags));
  assert.throws(() => checkQuota('apiKey', 2, tags), (e: unknown) => e instanceof HttpError && e.status === 403 && e.message === quotaMessage('apiKey', 2, 2));
  assert.throws(() => checkQuota('apiKey', 5, tags), (e: unknown) => e instanceof HttpError && e.message === quotaMessage('apiKey', 5, 2));
});
