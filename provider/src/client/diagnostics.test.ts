import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiErrorDiagnostic, fieldPath } from './diagnostics.ts';

test('server field paths become attribute paths in snake_case', () => {
  assert.deepEqual(fieldPath('budget.capUsd'), ['budget', 'cap_usd']);
  assert.deepEqual(fieldPath('rules[2].pattern'), ['rules', 2, 'pattern']);
  assert.deepEqual(fieldPath('auth.jwksJson'), ['auth', 'jwks_json']);
  assert.deepEqual(fieldPath('provider', { provider: 'llm_provider' }), ['llm_provider']);
});

test('a 400 names the attribute and keeps the server\'s words; a 401 says to check the token', () => {
  const d = apiErrorDiagnostic({ status: 400, message: 'budget.capUsd: must be >= 0' }, { action: 'Creating the LLM proxy' });
  assert.deepEqual(d, { severity: 'error', summary: 'Creating the LLM proxy failed (HTTP 400)', detail: 'budget.capUsd: must be >= 0', path: ['budget', 'cap_usd'] });
  const u = apiErrorDiagnostic({ status: 401, message: 'Unauthorized' }, { action: 'Reading the profile' });
  assert.equal(u.path, undefined);
  assert.match(u.detail ?? '', /^Unauthorized\. Check the provider's token/);
});

test('a message that is not about a field carries no path', () => {
  const d = apiErrorDiagnostic({ status: 400, message: 'name e url sono obbligatori' }, { action: 'Creating the MCP server' });
  assert.equal(d.path, undefined);
});
