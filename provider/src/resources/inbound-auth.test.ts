import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UNKNOWN, type ObjectValue } from '../framework/types.ts';
import { llmProxyResource } from './llm-proxy.ts';
import { mcpServerResource } from './mcp-server.ts';

const auth = (a: ObjectValue): ObjectValue => ({ name: 'x', auth: { mode: null, issuer: null, audience: null, jwks_json: null, clock_skew_s: null, ...a } });
const jwks = '{"keys":[]}';

test('both proxies refuse jwt mode without an audience or an issuer at validate time, on the attribute, in the API\'s words', () => {
  for (const resource of [mcpServerResource, llmProxyResource]) {
    const d = resource.validate!(auth({ mode: 'jwt', issuer: 'https://idp.example', jwks_json: jwks }));
    assert.deepEqual(d.map((x) => [x.path, x.detail]), [[['auth', 'audience'], 'auth.audience: is required when mode is jwt']]);
    const both = resource.validate!(auth({ mode: 'jwt', jwks_json: jwks }));
    assert.deepEqual(both.map((x) => x.detail), ['auth.audience: is required when mode is jwt', 'auth.issuer: is required when mode is jwt']);
  }
});

test('values known only at apply, another mode, or no auth at all are not refused', () => {
  const v = mcpServerResource.validate!;
  assert.deepEqual(v(auth({ mode: 'jwt', issuer: UNKNOWN, audience: UNKNOWN, jwks_json: jwks })), []);
  assert.deepEqual(v(auth({ mode: UNKNOWN })), [], 'the mode is not known yet');
  assert.deepEqual(v(auth({})), [], 'the default mode is svc_api_key');
  assert.deepEqual(v(auth({ mode: 'svc_api_key' })), []);
  assert.deepEqual(v({ name: 'x', auth: null }), []);
  assert.deepEqual(v({ name: 'x', auth: UNKNOWN }), []);
});
