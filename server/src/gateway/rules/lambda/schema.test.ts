// PUT-time validation of lambda rules: Lua that does not compile is a 400 naming the rule index and field.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../../http/errors.ts';
import { validateRules } from '../validate.ts';

const rule = (lua_code: unknown, phase = 'access') => ({ rule_type: 'lambda', tools: ['*'], name: 'r', phase, lua_code });

function rejects(kind: 'mcp' | 'llm', rules: unknown[], message: RegExp): void {
  assert.throws(() => validateRules(kind, rules), (err: unknown) => {
    assert.ok(err instanceof HttpError, 'an HttpError');
    assert.equal(err.status, 400);
    assert.match(err.message, message);
    return true;
  });
}

describe('lambda rule schema', () => {
  it('accepts Lua that compiles', () => {
    const [r] = validateRules('mcp', [rule('if svc.context.tool_name == "x" then svc.response.exit(403, "no") end')]);
    assert.equal(r?.rule_type, 'lambda');
  });

  it('rejects a syntax error with the line and Lua\'s reason', () => {
    rejects('mcp', [rule('local x = = 1')], /^rules\[0\]\.lua_code: line 1: unexpected symbol near '='$/);
  });

  it('names the index of the offending rule', () => {
    rejects('mcp', [rule('local ok = 1'), rule('\n\nif x then')], /^rules\[1\]\.lua_code: line 3: 'end' expected near <eof>$/);
  });

  it('rejects precompiled bytecode (text chunks only)', () => {
    rejects('mcp', [rule('\x1bLua\x53\x00')], /^rules\[0\]\.lua_code: .*binary chunk/);
  });

  it('rejects an expression that concatenates too many values', () => {
    const src = `local s = ${Array.from({ length: 20 }, () => '"a"').join(' .. ')}`;
    rejects('mcp', [rule(src)], /^rules\[0\]\.lua_code: line 1: .*svc\.table\.concat/);
  });

  it('reports a missing lua_code as a field error, not a crash', () => {
    rejects('mcp', [rule(undefined)], /^rules\[0\]\.lua_code: /);
  });

  it('keeps response-phase lambdas MCP-only', () => {
    rejects('llm', [rule('local x = 1', 'response')], /^rules\[0\]\.phase: /);
    assert.equal(validateRules('llm', [rule('local x = 1')]).length, 1);
  });
});
