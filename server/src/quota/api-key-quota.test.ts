import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../http/errors.ts';
import { apiKeyLimit, apiKeyLimitMessage, checkApiKeyQuota } from './api-key-quota.ts';

test('the key limit defaults to 40 and follows private:permissions:apikey:limit:N', () => {
  assert.equal(apiKeyLimit([]), 40);
  assert.equal(apiKeyLimit(['private:permissions:user', 'private:permissions:apikey:limit:3']), 3);
  assert.equal(apiKeyLimit(['private:permissions:apikey:limit:0']), 0);
  assert.equal(apiKeyLimit(['private:permissions:apikey:limit:abc']), 40);
});

test('the quota message has the spec wording with count and limit', () => {
  assert.equal(apiKeyLimitMessage(2, 2), 'API key limit reached (2/2). Contact an administrator to raise your quota.');
});

test('one more key is allowed below the limit and refused at it', () => {
  const tags = ['private:permissions:apikey:limit:2'];
  assert.doesNotThrow(() => checkApiKeyQuota(1, tags));
  assert.throws(() => checkApiKeyQuota(2, tags), (e: unknown) => e instanceof HttpError && e.status === 403 && e.message === apiKeyLimitMessage(2, 2));
  assert.throws(() => checkApiKeyQuota(5, tags), (e: unknown) => e instanceof HttpError && e.message === apiKeyLimitMessage(5, 2));
});
