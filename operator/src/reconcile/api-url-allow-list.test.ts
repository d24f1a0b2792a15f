import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AllowListError, ApiUrlAllowList, endpointOf, parseApiUrl } from './api-url-allow-list.ts';

const allows = (list: string, url: string) => {
  const parsed = parseApiUrl(url);
  assert.ok(parsed, `${url} parses`);
  return ApiUrlAllowList.parse(list).allows(parsed);
};

test('an origin allows every path on it, and nothing on a look-alike host, port or scheme, nor a user-info trick', () => {
  const list = 'http://tollgate-api.tollgate.svc:8080, https://api.example.com';
  assert.equal(allows(list, 'http://tollgate-api.tollgate.svc:8080'), true);
  assert.equal(allows(list, 'http://tollgate-api.tollgate.svc:8080/'), true);
  assert.equal(allows(list, 'https://API.example.com:443/anything'), true, 'host case and the default port are normalised');
  for (const url of [
    'http://tollgate-api.tollgate.svc:8081', 'https://tollgate-api.tollgate.svc:8080', 'http://api.example.com',
    'https://api.example.com.evil.net', 'https://api.example.com:8443', 'https://evil.net/https://api.example.com',
    'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080', 'http://tollgate-api.tollgate.svc.:8080',
  ]) assert.equal(allows(list, url), false, url);
  assert.equal(parseApiUrl('https://api.example.com@evil.net'), undefined, 'user info is refused before any comparison');
});

test('a path prefix matches whole segments only, after dot segments are resolved', () => {
  const list = 'https://gw.example.com/tollgate/';
  assert.equal(allows(list, 'https://gw.example.com/tollgate'), true);
  assert.equal(allows(list, 'https://gw.example.com/tollgate/eu'), true);
  assert.equal(allows(list, 'https://gw.example.com/tollgate-other'), false);
  assert.equal(allows(list, 'https://gw.example.com/'), false);
  assert.equal(allows(list, 'https://gw.example.com/tollgate/../admin'), false, '/admin once resolved');
  assert.equal(allows(list, 'https://gw.example.com/tollgate/%2e%2e/admin'), false, 'encoded dots resolve too');
});

test('* allows every URL; bad entries are refused with the entry named', () => {
  assert.equal(allows('*', 'http://10.1.2.3:9999/x'), true);
  assert.equal(ApiUrlAllowList.parse(' * ').any, true);
  assert.throws(() => ApiUrlAllowList.parse('*,https://a.example'), /cannot be combined/);
  assert.throws(() => ApiUrlAllowList.parse(' , '), /at least one URL/);
  for (const bad of ['api.example.com', 'ftp://a.example', 'https://user:pw@a.example', 'https://a.example/?x=1', 'https://a.example/#f', 'http:///x']) {
    assert.throws(() => ApiUrlAllowList.parse(bad), (err: Error) => err instanceof AllowListError && err.message.includes(JSON.stringify(bad)), bad);
  }
  assert.equal(ApiUrlAllowList.parse('https://A.example:443/p/, http://b.example:80').toString(), 'https://a.example/p,http://b.example');
});

test('a connection url with credentials, a query or a fragment is refused; the endpoint called is the one judged', () => {
  for (const bad of ['https://user@api.example.com', 'https://api.example.com?x', 'https://api.example.com/#', 'https://', 'api.example.com', 'https://a b.example']) {
    assert.equal(parseApiUrl(bad), undefined, bad);
  }
  assert.equal(endpointOf(parseApiUrl('HTTPS://Api.Example.com:443/tollgate//')!), 'https://api.example.com/tollgate');
  assert.equal(endpointOf(parseApiUrl('http://10.0.0.5:8080/')!), 'http://10.0.0.5:8080');
});
