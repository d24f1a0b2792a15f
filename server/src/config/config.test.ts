import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from './config.ts';

test('TOLLGATE_PGLITE_NICE: 0 by default, 0 to 19 accepted, anything else refused naming the variable', () => {
  assert.equal(loadConfig({}).pgliteNice, 0);
  assert.equal(loadConfig({ TOLLGATE_PGLITE_NICE: '10' }).pgliteNice, 10);
  assert.equal(loadConfig({ TOLLGATE_PGLITE_NICE: '0' }).pgliteNice, 0);
  assert.equal(loadConfig({ TOLLGATE_PGLITE_NICE: '19' }).pgliteNice, 19);
  for (const bad of ['-5', '20', '2.5', 'low']) {
    assert.throws(() => loadConfig({ TOLLGATE_PGLITE_NICE: bad }), (e: unknown) => e instanceof ConfigError
      && e.message === `TOLLGATE_PGLITE_NICE: must be an integer from 0 to 19, got "${bad}"`);
  }
});

test('ports and positive integers: defaults when unset, refusals naming the variable and the value', () => {
  assert.equal(loadConfig({}).apiPort, 8080);
  assert.equal(loadConfig({ TOLLGATE_API_PORT: '0' }).apiPort, 0);
  assert.throws(() => loadConfig({ TOLLGATE_API_PORT: '65536' }), { message: 'TOLLGATE_API_PORT: must be a port number, got "65536"' });
  assert.equal(loadConfig({ TOLLGATE_CONFIG_POLL_MS: '250' }).configPollMs, 250);
  for (const bad of ['0', '-1', '1.5', 'soon']) {
    assert.throws(() => loadConfig({ TOLLGATE_CONFIG_POLL_MS: bad }), { message: `TOLLGATE_CONFIG_POLL_MS: must be a positive integer, got "${bad}"` });
  }
});
