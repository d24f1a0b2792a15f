// No secret in logs or audit events (docs/security.md, SECURITY.md "Logs and audit"): every secret the service
// handles (the PAT, a session, a password, a TOTP secret, an MCP upstream token, a provider key, a client key, a
// JWT) travels through the API and the gateway, accepted and refused, with the log at debug level; no log line and
// no audit row may contain any of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createLogger } from '../log.ts';
import { TEST_PASSWORD } from '@tollgate/testkit/harness.ts';
import { createLlmKey, createLlmProxy, rawLlm, startLlmEnv } from '@tollgate/testkit/llm-kit.ts';
import { INIT, rawPost } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { sessionToken, withCookie } from '@tollgate/testkit/session.ts';

test('no secret reaches a log line or an audit event, on accepted and on refused requests', async () => {
  const lines: string[] = [];
  const upstreamToken = `mcp-upstream-token-${randomBytes(6).toString('hex')}`;
  const up = await startMcpUpstream({ token: upstreamToken });
  const e = await startLlmEnv({ log: createLogger({}, 'debug', (l) => { lines.push(l); }) });
  const { t, user } = e;
  const secrets: Record<string, string> = { pat: user.pat, upstreamToken, providerKey: e.fakes.openai.providerKey, password: TEST_PASSWORD };
  try {
    // MCP: create with a token, discover, call through the gateway with a client key, then with wrong credentials.
    const m = await t.request('POST', '/api/mcp', { token: user.pat, body: { name: 'm', url: up.url, authType: 'bearer', authToken: upstreamToken } });
    assert.equal(m.status, 201, m.text);
    const mcpId = m.body.server.id as string;
    assert.equal((await t.request('POST', `/api/mcp/${mcpId}/tools`, { token: user.pat })).status, 200);
    const k = await t.request('POST', '/api/keys', { token: user.pat, body: { name: 'nosecrets', mcpPermissions: [{ id: mcpId, tools: ['*'] }] } });
    secrets.mcpClientKey = k.body.key.key;
    assert.equal((await rawPost(`${t.gateway}/${mcpId}/`, INIT, { authorization: `Bearer ${secrets.mcpClientKey}` })).status, 200);
    secrets.wrongKey = `tgk_${randomBytes(16).toString('hex')}`;
    assert.equal((await rawPost(`${t.gateway}/${mcpId}/`, INIT, { authorization: `Bearer ${secrets.wrongKey}` })).status, 401);
    assert.equal((await rawPost(`${t.gateway}/${mcpId}/`, INIT, { authorization: `Bearer ${user.pat}` })).status, 401);
    // A wrong upstream token: discovery fails with 502, its message scrubbed.
    secrets.wrongUpstreamToken = `wrong-upstream-${randomBytes(6).toString('hex')}`;
    assert.equal((await t.request('PATCH', `/api/mcp/${mcpId}`, { token: user.pat, body: { authToken: secrets.wrongUpstreamToken } })).status, 200);
    const d = await t.request('POST', `/api/mcp/${mcpId}/tools`, { token: user.pat });
    assert.equal(d.status, 502);
    assert.ok(!d.text.includes(secrets.wrongUpstreamToken));

    // LLM: a chat with a client key, a wrong key, and a provider key the API refuses (it must not echo it).
    const p = await createLlmProxy(e, 'openai', { logConversations: true });
    const lk = await createLlmKey(e, p);
    secrets.llmClientKey = lk.key;
    assert.equal((await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${lk.key}` })).status, 200);
    assert.equal((await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [] }, { authorization: `Bearer ${secrets.wrongKey}` })).status, 401);
    secrets.refusedProviderKey = `sk-refused ${randomBytes(6).toString('hex')}`;
    const bad = await t.request('PATCH', `/api/llm/${p.id}`, { token: user.pat, body: { providerKey: secrets.refusedProviderKey } });
    assert.equal(bad.status, 400);
    assert.ok(!bad.text.includes(secrets.refusedProviderKey));

    // The dashboard: a wrong and a right sign-in, a session, a 2FA setup; an unknown PAT on the API.
    secrets.wrongPassword = `wrong-${randomBytes(6).toString('hex')}`;
    assert.equal((await t.request('POST', '/api/auth/login', { body: { email: 'nobody@example.test', password: secrets.wrongPassword } })).status, 401);
    const login = await t.request('POST', '/api/auth/login', { body: { email: user.email, password: TEST_PASSWORD } });
    secrets.session = sessionToken(login)!;
    const setup = await t.request('POST', '/api/2fa/setup', withCookie(`tollgate_session=${secrets.session}`));
    assert.equal(setup.status, 200, setup.text);
    secrets.totpSecret = setup.body.secret;
    secrets.unknownPat = `svc_pat_${randomBytes(24).toString('base64url')}`;
    assert.equal((await t.request('GET', '/api/profile', { token: secrets.unknownPat })).status, 401);

    await t.flush();
    const rows = (await t.app.services.db.query<{ row: string }>('SELECT row_to_json(a)::text AS row FROM audit_events a')).map((r) => r.row);
    const audit = rows.join('\n');
    const log = lines.join('\n');
    // The service logs little (start-up warnings, sign-ins, errors); the audit trail records every request above.
    assert.ok(lines.length >= 3 && rows.length >= 10, `${lines.length} log lines, ${rows.length} audit events`);
    for (const [name, value] of Object.entries(secrets)) {
      assert.ok(value && value.length >= 8, name);
      assert.ok(!log.includes(value), `the ${name} is in the log`);
      assert.ok(!audit.includes(value), `the ${name} is in an audit event`);
    }
  } finally {
    await e.close();
    await up.close();
  }
});
