// Property-based fuzzing of every management route (issue "Hardening", part 2): requests generated from the routes
// of the server's OpenAPI document and the contract's request schemas (valid-ish, mutated, random, not JSON at all),
// with real and foreign ids, traversal strings and every kind of credential. Each answer must be a documented status
// (no 5xx but discovery's 502), JSON, `{error}` in the spec's style when refused, inside the contract's schema when
// accepted, free of secrets, and must not reach another user's objects; a refused request must leave the database as
// it was; the other user's objects never change.
//
// Budget: TOLLGATE_FUZZ_RUNS requests (default 3000, about a minute here); the full length is
//   TOLLGATE_FUZZ_RUNS=100000 npm test -- test/fuzz
// TOLLGATE_FUZZ_SEED replays a run (the seed is printed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { exportJWK, generateKeyPair } from 'jose';
import { createLogger } from '../../server/src/log.ts';
import { startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { startFakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { signIn } from '@tollgate/testkit/session.ts';
import { reloadAndCompare } from '@tollgate/testkit/snapshot-content.ts';
import { httpClient } from './client.ts';
import { fingerprinter } from './fingerprint.ts';
import { makeHints } from './hints.ts';
import { requestArbitrary } from './request-arbitrary.ts';
import { loadRoutes } from './routes.ts';
import { Fuzzer } from './runner.ts';
import { fuzzLookup, seed } from './seed.ts';
import { World } from './world.ts';

const RUNS = Number(process.env.TOLLGATE_FUZZ_RUNS ?? 3000);
const SEED = Number(process.env.TOLLGATE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** What another user sees of their own objects: it must never change while the fuzzed user does anything. */
async function snapshotOf(t: TestApp, pat: string): Promise<unknown> {
  const get = async (p: string) => (await t.request('GET', p, { token: pat })).body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const p of ['/api/profile', '/api/mcp', '/api/llm', '/api/keys', '/api/resources']) out[p] = await get(p);
  for (const s of (out['/api/mcp'] as { servers: Array<{ id: string }> }).servers) {
    for (const p of [`/api/mcp/${s.id}`, `/api/mcp/${s.id}/rules`]) out[p] = await get(p);
  }
  for (const l of (out['/api/llm'] as { proxies: Array<{ id: string }> }).proxies) {
    for (const p of [`/api/llm/${l.id}`, `/api/llm/${l.id}/rules`, `/api/llm/${l.id}/keys`, `/api/llm/${l.id}/logs`]) out[p] = await get(p);
  }
  return out;
}

test(`every management route under ${RUNS} fuzzed requests: no 5xx, errors in the spec's shape, no change on refusal (seed ${SEED})`, async () => {
  const up = await startMcpUpstream();
  const fake = await startFakeProvider('openai');
  const errors: string[] = [];
  const t = await startTestApp({
    lookup: fuzzLookup, log: createLogger({}, 'error', (line) => errors.push(line)),
    env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url, TOLLGATE_REPIN_INTERVAL_MS: '3600000' },
  });
  const client = httpClient(t.api);
  try {
    const me = await t.createUser();
    const other = await t.createUser();
    const upstreamUrl = `http://mcp.fuzz.test:${up.port}/mcp`;
    const mine = await seed({ t, pat: me.pat, upstreamUrl, providerKey: fake.providerKey });
    await seed({ t, pat: other.pat, upstreamUrl, providerKey: fake.providerKey });
    const { cookie } = await signIn(t, me.email);
    const world = new World(t.app.services.db, me.userId, other.userId, { pat: me.pat, cookie, clientKey: mine.clientKey });
    await world.refresh();
    const routes = await loadRoutes(t);
    assert.ok(routes.length >= 50, `${routes.length} routes in the OpenAPI document`);
    const { publicKey } = await generateKeyPair('RS256');
    const jwksJson = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
    const hint = makeHints({ upstreamUrl, jwksJson, email: me.email });
    const fuzzer = new Fuzzer({ t, routes, world, fingerprint: await fingerprinter(t.app.services.db), client, upstream: { upstreamUrl, providerKey: fake.providerKey } });
    const otherBefore = await snapshotOf(t, other.pat);

    const property = fc.asyncProperty(requestArbitrary(routes, hint), async (req) => {
      try {
        await fuzzer.run(req);
      } catch (err) {
        if (errors.length) (err as Error).message += `\nserver errors:\n${errors.join('\n')}`;
        throw err;
      }
      if (fuzzer.stats.requests % 500 === 0) {
        assert.deepEqual(await snapshotOf(t, other.pat), otherBefore, 'another user\'s objects changed');
        // Reloads read only the users whose rows changed (migration 009's triggers say whom): no change may escape them.
        await reloadAndCompare(t);
      }
    });
    try {
      await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true });
      await fuzzer.finish();
      await reloadAndCompare(t);
      assert.deepEqual(await snapshotOf(t, other.pat), otherBefore, 'another user\'s objects changed');
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
      assert.deepEqual(errors, [], 'the API logged errors');
    } finally {
      console.log(`${fuzzer.stats.report(routes)}\nseed: ${SEED} (TOLLGATE_FUZZ_SEED replays it)`);
    }
  } finally {
    client.close();
    await t.close();
    await up.close();
    await fake.close();
  }
});
