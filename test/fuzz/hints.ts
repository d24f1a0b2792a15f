// Field generators that know what a field means, so that many generated bodies pass validation and reach the code
// behind it: ids of real objects (the caller's and another user's), upstream URLs (one that works, many hostile
// ones), JWKS documents, Lua, regexes, CIDRs, sign-in credentials. Secrets carry a canary that no answer may echo.
import fc from 'fast-check';
import { TEST_PASSWORD } from '@tollgate/testkit/harness.ts';
import type { Hint } from './schema-arbitrary.ts';
import { strangeString } from './hostile.ts';
import { ref, type RefKind } from './world.ts';

/** Written into every secret the fuzzer sends (authToken, providerKey); no response may ever contain it. */
export const CANARY = 'fuzzcanary7d1e';

export interface HintContext {
  /** An upstream URL that works (the test's MCP upstream through a name the fake DNS knows). */
  upstreamUrl: string;
  /** A JWKS document with one RSA key. */
  jwksJson: string;
  /** The fuzzed user's e-mail (so that some sign-ins succeed). */
  email: string;
}

const HOSTILE_URLS = [
  'http://127.0.0.1:1/', 'https://10.0.0.1/', 'https://169.254.169.254/latest/meta-data/', 'http://2130706433/', 'http://0x7f.1/',
  'http://0177.0.0.1/', 'https://[::ffff:7f00:1]/', 'https://[64:ff9b::7f00:1]/', 'https://[fd00::1]/', 'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_INFO', 'javascript:alert(1)', 'https://user:pw@public.fuzz.test/', 'https://internal.fuzz.test/',
  'https://mixed.fuzz.test/', 'https://nx.fuzz.test/', 'https://public.fuzz.test:0/', 'https://public.fuzz.test:65536/', 'not a url',
  'https://public.fuzz.test/%00', 'https://public.fuzz.test/\u0000', 'https://public.fuzz.test/?a=\r\nX-Injected: 1', `https://${'a'.repeat(300)}.fuzz.test/`,
];

const LUA = [
  'svc.log.info("hi")', 'if svc.context.tool_name == "x" then svc.response.exit(403, "no") end', 'while true do end',
  'local s = "x" for i = 1, 40 do s = s .. s end', 'local function f() return f() + 1 end f()', 'os.execute("id")',
  'return load("return 1")()', 'this is not lua', '\x1bLua\x53\x00', 'end', String.raw`svc.response.exit(200, svc.json.encode({a = 1}))`,
];

const PATTERNS = ['\\d{16}', '(?i)secret', '(a+)+$', '\\d{1,1000}x', '(?:a|aa|aaa|aaaa){1,1000}x', '(a)\\1', '(?=x)', '[', '*', '', '\\p{Greek}{1,100}', '.{0,1000}x', 'x'.repeat(5000)];

const CIDRS = ['10.0.0.0/8', '127.0.0.1', '::1', '::/0', '0.0.0.0/0', '192.168.1.1/33', '::ffff:10.0.0.0/104', 'fe80::1%eth0', '1.2.3.4/-1', 'garbage', '', '1.2.3.4/08'];

function refArb(kinds: RefKind[]): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom('own' as const, 'own' as const, 'own' as const, 'other' as const), fc.constantFrom(...kinds), fc.nat(1000))
    .map(([o, k, n]) => ref(o, k, n));
}

const idArb = fc.oneof({ weight: 6, arbitrary: refArb(['mcp', 'llm']) }, { weight: 1, arbitrary: fc.uuid() }, { weight: 1, arbitrary: strangeString });

function jwksArb(good: string): fc.Arbitrary<string> {
  return fc.constantFrom(good, '{}', '{"keys":[]}', 'garbage', '{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}', '{"keys":[{"kty":"RSA"}]}',
    JSON.stringify({ keys: Array.from({ length: 200 }, () => JSON.parse(good).keys[0]) }), '[]', '"x"');
}

export function makeHints(c: HintContext): Hint {
  const byName: Record<string, fc.Arbitrary<unknown>> = {
    url: fc.oneof({ weight: 3, arbitrary: fc.constant(c.upstreamUrl) }, { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_URLS) }),
    id: idArb,
    tools: fc.oneof(fc.constant(['*']), fc.array(fc.oneof(refArb(['tool']), fc.constantFrom('echo', '*', 'nope')), { minLength: 1, maxLength: 3 })),
    resources: fc.oneof(fc.constant(['*']), fc.array(fc.oneof(refArb(['res']), fc.constant('*')), { maxLength: 3 })),
    models: fc.oneof(fc.constant(['*']), fc.array(fc.constantFrom('gpt-4o-mini', 'claude-3', '*', 'a b'), { maxLength: 3 })),
    jwksJson: jwksArb(c.jwksJson),
    lua_code: fc.constantFrom(...LUA),
    pattern: fc.constantFrom(...PATTERNS),
    cidrs: fc.array(fc.constantFrom(...CIDRS), { minLength: 1, maxLength: 3 }),
    authToken: fc.constantFrom(`tok-${CANARY}`, `bad token ${CANARY}\n`, ''),
    providerKey: fc.constantFrom(`sk-${CANARY}`, `sk ${CANARY}`, `sk-${CANARY}\u0000`),
    email: fc.oneof({ weight: 3, arbitrary: fc.constant(c.email) }, { weight: 1, arbitrary: fc.constantFrom(c.email.toUpperCase(), ` ${c.email} `, 'nobody@example.test', 'x') }),
    password: fc.oneof({ weight: 3, arbitrary: fc.constant(TEST_PASSWORD) }, { weight: 1, arbitrary: fc.constantFrom('wrong', '', TEST_PASSWORD.toUpperCase()) }),
    code: fc.oneof(fc.constant(ref('own', 'totp', 0)), fc.stringMatching(/^\d{6}$/), fc.constantFrom('', '000000', '1234567', 'abcdef')),
    customTags: fc.array(fc.constantFrom('team:a', 'svc:personal:token', 'private:permissions:mcp', 'mcp:*:tool:*', 'name:x', `llm:${ref('other', 'llm', 0)}:model:*`), { maxLength: 3 }),
  };
  return (property) => byName[property];
}
