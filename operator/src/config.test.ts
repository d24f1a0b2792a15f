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

test('watched namespaces: every one by default, a list (TOLLGATE_WATCH_NAMESPACE as a list of one), or a label selector', () => {
  assert.deepEqual(loadConfig({}).watch, { mode: 'all' });
  assert.deepEqual(loadConfig({ TOLLGATE_WATCH_NAMESPACE: 'apps' }).watch, { mode: 'list', namespaces: ['apps'] });
  assert.deepEqual(loadConfig({ TOLLGATE_WATCH_NAMESPACES: ' team-a, team-b ,team-a' }).watch, { mode: 'list', namespaces: ['team-a', 'team-b'] });
  assert.deepEqual(loadConfig({ TOLLGATE_WATCH_NAMESPACE_SELECTOR: ' tollgate.dev/watch=yes, tier in (a, b),!legacy ' }).watch,
    { mode: 'selector', selector: 'tollgate.dev/watch=yes, tier in (a, b),!legacy' });
  for (const ok of ['team', 'team==a', 'team!=a', 'team=', 'example.com/team notin (x)', 'a in (x,y),b', '!a,b=c']) {
    assert.equal(loadConfig({ TOLLGATE_WATCH_NAMESPACE_SELECTOR: ok }).watch.mode, 'selector', ok);
  }
});

test('bad watched namespaces stop the start with one line naming the variable', () => {
  const fails = (env: NodeJS.ProcessEnv, message: string) =>
    assert.throws(() => loadConfig(env), (e: Error) => e instanceof ConfigError && e.message === message, JSON.stringify(env));
  fails({ TOLLGATE_WATCH_NAMESPACES: 'a,,b' }, 'TOLLGATE_WATCH_NAMESPACES: item 2 is empty (a comma-separated list of namespaces, e.g. team-a,team-b)');
  fails({ TOLLGATE_WATCH_NAMESPACES: 'a,Team_B' }, 'TOLLGATE_WATCH_NAMESPACES: "Team_B" is not a namespace name (lower-case letters, digits and -, at most 63)');
  fails({ TOLLGATE_WATCH_NAMESPACE: 'x'.repeat(64) }, `TOLLGATE_WATCH_NAMESPACE: "${'x'.repeat(64)}" is not a namespace name (lower-case letters, digits and -, at most 63)`);
  fails({ TOLLGATE_WATCH_NAMESPACES: 'a', TOLLGATE_WATCH_NAMESPACE_SELECTOR: 'team=a' },
    'TOLLGATE_WATCH_NAMESPACES and TOLLGATE_WATCH_NAMESPACE_SELECTOR are set together: set one (namespaces by name, or a namespace label selector), or none for every namespace');
  fails({ TOLLGATE_WATCH_NAMESPACE: 'a', TOLLGATE_WATCH_NAMESPACES: 'b' },
    'TOLLGATE_WATCH_NAMESPACE and TOLLGATE_WATCH_NAMESPACES are set together: set one (namespaces by name, or a namespace label selector), or none for every namespace');
  fails({ TOLLGATE_WATCH_NAMESPACE_SELECTOR: 'team=a,' }, 'TOLLGATE_WATCH_NAMESPACE_SELECTOR: has an empty requirement in "team=a,"');
  fails({ TOLLGATE_WATCH_NAMESPACE_SELECTOR: 'team in a,b' },
    'TOLLGATE_WATCH_NAMESPACE_SELECTOR: "team in a" is not a label selector requirement (key=value, key!=value, key in (a,b), key notin (a,b), key or !key)');
  fails({ TOLLGATE_WATCH_NAMESPACE_SELECTOR: 'team=a b' },
    'TOLLGATE_WATCH_NAMESPACE_SELECTOR: "team=a b" is not a label selector requirement (key=value, key!=value, key in (a,b), key notin (a,b), key or !key)');
  assert.deepEqual(loadConfig({ TOLLGATE_WATCH_NAMESPACE: '', TOLLGATE_WATCH_NAMESPACES: 'b' }).watch, { mode: 'list', namespaces: ['b'] }, 'an empty variable counts as unset');
});
