import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../http/errors.ts';
import { parseCreateKeyBody, parseUpdateKeyBody } from './body.ts';

function fails(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof HttpError && e.status === 400 && (typeof message === 'string' ? e.message === message : message.test(e.message)));
}

test('a missing, null or empty name is "name is required"', () => {
  for (const body of [{}, { name: null }, { name: '' }, null, [], 'x']) fails(() => parseCreateKeyBody(body), 'name is required');
});

test('a name outside [a-zA-Z0-9_-]+ is the spec\'s invalid-name message', () => {
  for (const name of ['a b', 'a:b', 'ünï', 'a/b', 5, true, ['a']]) {
    fails(() => parseCreateKeyBody({ name }), 'Invalid name — use letters, numbers, - and _ only');
  }
  fails(() => parseCreateKeyBody({ name: 'a'.repeat(65) }), 'name: must be at most 64 characters');
});

test('defaults fill omitted permission arrays', () => {
  assert.deepEqual(parseCreateKeyBody({ name: 'Ok_-1' }), { name: 'Ok_-1', mcpPermissions: [], llmPermissions: [], customTags: [] });
  const b = parseCreateKeyBody({ name: 'k', mcpPermissions: [{ id: 'x', tools: ['a'] }] });
  assert.deepEqual(b.mcpPermissions, [{ id: 'x', tools: ['a'], resources: [] }]);
});

test('shape errors name the field', () => {
  fails(() => parseCreateKeyBody({ name: 'k', mcpPermissions: {} }), /^mcpPermissions: /);
  fails(() => parseCreateKeyBody({ name: 'k', mcpPermissions: [{ id: 'x', tools: [''] }] }), /^mcpPermissions\[0\]\.tools\[0\]: /);
  fails(() => parseCreateKeyBody({ name: 'k', llmPermissions: [{ id: 'x' }] }), /^llmPermissions\[0\]\.models: /);
  fails(() => parseCreateKeyBody({ name: 'k', customTags: 'a' }), /^customTags: /);
  fails(() => parseCreateKeyBody({ name: 'k', customTags: Array(51).fill('a') }), /^customTags: /);
});

test('PATCH accepts the current name and refuses a different one', () => {
  assert.equal(parseUpdateKeyBody({ name: 'k' }, 'k').name, 'k');
  fails(() => parseUpdateKeyBody({ name: 'other' }, 'k'), /^name: is fixed at creation/);
});
