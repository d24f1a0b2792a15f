import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiErrorSummary, MAX_MESSAGE_CHARS, printable } from './api-error-summary.ts';

const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

test('an {error} string is kept when short and printable, else cleaned and cut to 200 characters', () => {
  assert.equal(apiErrorSummary({ status: 400, message: 'url: must be https', body: { bytes: 31, json: true, errorField: true } }), 'url: must be https');
  const hostile = `line one\r\nline two\u0000\u001b[31mred\u202egnirts\u200b${'x'.repeat(100_000)}`;
  const s = apiErrorSummary({ status: 500, message: hostile, body: { bytes: 100_100, json: true, errorField: true } });
  assert.doesNotMatch(s, UNPRINTABLE);
  assert.ok(s.startsWith('line one line two[31mredgnirts'), s.slice(0, 40));
  assert.equal([...s].length, MAX_MESSAGE_CHARS + 1, 'the limit plus the ellipsis');
  assert.ok(s.endsWith('x…'));
});

test('a body without an {error} string is described by its size, never quoted', () => {
  const html = '<html><script>alert(1)</script>\u0000'.repeat(500);
  assert.equal(apiErrorSummary({ status: 502, message: html.slice(0, 200), body: { bytes: 12_345, json: false, errorField: false } }), 'non-JSON body, 12345 bytes');
  assert.equal(apiErrorSummary({ status: 500, message: '{"detail":"secret stack"}', body: { bytes: 25, json: true, errorField: false } }), 'JSON body without a printable error, 25 bytes');
  assert.equal(apiErrorSummary({ status: 500, message: '\u0000\u0001', body: { bytes: 21, json: true, errorField: true } }), 'JSON body without a printable error, 21 bytes');
  assert.equal(apiErrorSummary({ status: 503, message: 'Service Unavailable', body: { bytes: 0, json: false, errorField: false } }), 'empty body');
  assert.equal(apiErrorSummary({ status: 0, message: 'cannot reach http://10.0.0.1: ECONNREFUSED' }), 'cannot reach http://10.0.0.1: ECONNREFUSED', 'the client\'s own words');
});

test('printable keeps astral characters whole and looks only at a bounded prefix', () => {
  assert.equal(printable('🙂'.repeat(5), 3), '🙂🙂🙂…');
  assert.equal(printable('a\n\n\tb  c'), 'a b c');
  assert.equal(printable(`${'\u0000'.repeat(1000)}tail`, 10), '…', 'what is past the looked-at prefix is cut, not searched');
});
