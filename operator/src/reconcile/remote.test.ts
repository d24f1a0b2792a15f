import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiFailure } from './remote.ts';

test('a redirect is ConnectionRedirected (not followed, looked at again in 30 s); the message summarises, never quotes', () => {
  const o = apiFailure({ status: 302, message: 'a redirect, not followed: use the URL of the management API itself' }, 'Listing the LLM proxies');
  assert.equal(o.synced.reason, 'ConnectionRedirected');
  assert.equal(o.ready.status, 'False');
  assert.deepEqual(o.requeue, { kind: 'after', ms: 30_000 });
  assert.equal(o.synced.message, 'Listing the LLM proxies failed (HTTP 302): a redirect, not followed: use the URL of the management API itself');
  assert.equal(o.event?.reason, 'ConnectionRedirected');

  const junk = apiFailure({ status: 500, message: '\u001b]0;pwned\u0007'.repeat(20), body: { bytes: 4_000_000, json: false, errorField: false } }, 'Listing the LLM proxies');
  assert.equal(junk.synced.reason, 'ApiUnavailable');
  assert.equal(junk.synced.message, 'Listing the LLM proxies failed (HTTP 500): non-JSON body, 4000000 bytes');
  assert.equal(junk.event?.message, junk.synced.message);
});
