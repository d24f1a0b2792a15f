import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from './config.ts';

const url = (s: string) => new URL(s);

test('TOLLGATE_OPERATOR_ALLOWED_API_URLS and --allowed-api-urls: the flag wins, unset (or empty) allows every URL', () => {
  assert.equal(loadConfig({}).allowedApiUrls, undefined);
  assert.equal(loadConfig({ TOLLGATE_OPERATOR_ALLOWED_API_URLS: ' ' }).allowedApiUrls, undefined);
  const fromEnv = loadConfig({ TOLLGATE_OPERATOR_ALLOWED_API_URLS: 'http://tollgate-api.tollgate.svc:8080' }).allowedApiUrls!;
  assert.equal(fromEnv.allows(url('http://tollgate-api.tollgate.svc:8080')), true);
  assert.equal(fromEnv.allows(url('http://169.254.169.254')), false);

  const env = { TOLLGATE_OPERATOR_ALLOWED_API_URLS: 'http://env.example' };
  assert.equal(loadConfig(env, ['--allowed-api-urls', 'https://a.example,https://b.example']).allowedApiUrls!.toString(), 'https://a.example,https://b.example');
  assert.equal(loadConfig(env, ['--allowed-api-urls=https://a.example', '--allowed-api-urls', 'https://b.example']).allowedApiUrls!.toString(), 'https://a.example,https://b.example');
  assert.equal(loadConfig({}, ['--allowed-api-urls=*']).allowedApiUrls!.any, true);
});

test('a bad allow-list or an unknown argument stops the start with one line naming it', () => {
  assert.throws(() => loadConfig({ TOLLGATE_OPERATOR_ALLOWED_API_URLS: 'api.example.com' }), (e: Error) => e instanceof ConfigError && e.message === 'TOLLGATE_OPERATOR_ALLOWED_API_URLS: "api.example.com" is not an http(s) URL without credentials, query or fragment');
  assert.throws(() => loadConfig({}, ['--allowed-api-urls=']), (e: Error) => e instanceof ConfigError && e.message === '--allowed-api-urls: needs at least one URL (or * for any)');
  assert.throws(() => loadConfig({}, ['--allowed-api-urls']), /--allowed-api-urls needs a value/);
  assert.throws(() => loadConfig({}, ['--watch-namespace', 'x']), /unknown argument "--watch-namespace"/);
});
