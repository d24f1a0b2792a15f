import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROVIDER_ADAPTERS } from './providers/index.ts';
import { routeOf, RouteMsg } from './routes.ts';

const { openai, gemini } = PROVIDER_ADAPTERS;

test('paths the provider could resolve or decode into another path are refused with 400, never resolved', () => {
  for (const p of [
    '/v1/files/../chat/completions', '/v1/./chat/completions', '/v1/chat/completions/..', '/v1/chat/completions/.',
    '/v1/%2e%2e/chat/completions', '/v1/%2E/chat/completions', '/v1/chat%2fcompletions', '/v1/chat%2Fcompletions',
    '/v1/chat%5ccompletions', '/v1/models/gpt%252e', '/v1//chat/completions', '/v1/chat/completions/', '//v1/chat/completions',
    '/v1\\chat/completions', '/v1/models/a%00', '/v1/models/a%7f', '/v1/models/a b', '/v1/models/a#b', '/v1/models/%zz', 'v1/models',
    'http://evil.example/v1/chat/completions', '*',
  ]) {
    const r = routeOf(openai, 'POST', p);
    assert.equal(r.use, 'refused', p);
    if (r.use === 'refused') assert.deepEqual([r.status, r.message, r.reason], [400, RouteMsg.invalidPath, 'invalid_path'], p);
  }
});

test('a path outside the table is 403 naming the method and path; a long path is cut in the message', () => {
  const r = routeOf(openai, 'GET', '/v1/files/abc/content');
  assert.deepEqual(r, {
    use: 'refused', status: 403, reason: 'endpoint_not_allowed', details: { method: 'GET', path: '/v1/files/abc/content' },
    message: 'Endpoint not allowed: GET /v1/files/abc/content is not served by this LLM proxy',
  });
  const long = `/v1/${'a'.repeat(500)}`;
  const cut = routeOf(openai, 'POST', long);
  assert.ok(cut.use === 'refused' && cut.message.length < 300 && cut.details.path.endsWith('…'));
  assert.equal(routeOf(openai, 'GET', '/').use, 'refused');
});

test('every call gets its own Endpoint (model_route rewrites it in place)', () => {
  const a = routeOf(gemini, 'POST', '/v1beta/models/gemini-2.0-flash:generateContent');
  const b = routeOf(gemini, 'POST', '/v1beta/models/gemini-2.0-flash:generateContent');
  assert.ok(a.use === 'call' && b.use === 'call' && a.endpoint !== b.endpoint);
});

test('percent-encoded model names are decoded; ones that are not UTF-8 match no route', () => {
  assert.deepEqual(routeOf(gemini, 'GET', '/v1beta/models/gemini%2D2.5-flash'), { use: 'get_model', model: 'gemini-2.5-flash' });
  assert.equal(routeOf(openai, 'GET', '/v1/models/%C3').use, 'refused');
  // A literal segment must be sent as it is in the table: the provider may not decode it the same way.
  assert.equal(routeOf(openai, 'POST', '/v1/chat/c%6fmpletions').use, 'refused');
});
