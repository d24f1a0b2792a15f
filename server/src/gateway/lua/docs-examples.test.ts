// The examples in docs/lambda.md run and do what the text says.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileOrThrow, makeInput, type LogLine } from '@tollgate/testkit/lua.ts';

const doc = readFileSync(new URL('../../../../docs/lambda.md', import.meta.url), 'utf8');
const examples = [...doc.matchAll(/```lua\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

describe('docs/lambda.md examples', () => {
  it('has the three examples', () => assert.equal(examples.length, 3));

  it('deny by header: refuses callers without the team header, lets the others through', () => {
    const lambda = compileOrThrow(examples[0] ?? '');
    const logs: LogLine[] = [];
    const denied = lambda.run(makeInput({ request: { headers: {}, body: '' } }, logs));
    assert.deepEqual(denied, { kind: 'exit', status: 403, body: '{"error":"team header required"}', headers: { 'content-type': 'application/json' } });
    assert.equal(logs[0]?.level, 'warn');
    assert.deepEqual(lambda.run(makeInput({ request: { headers: { 'x-team': 'blue' }, body: '' } })), { kind: 'continue' });
  });

  it('redaction: replaces API keys in text content of a tool result', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'key sk-abc123 and sk-XYZ' }, { type: 'image', data: 'sk-keep' }] } });
    const out = compileOrThrow(examples[1] ?? '').run(makeInput({ phase: 'response', response: { status: 200, body } }));
    assert.equal(out.kind, 'continue');
    const msg = JSON.parse(out.kind === 'continue' ? out.responseBody ?? '' : '') as { result: { content: { text?: string; data?: string }[] } };
    assert.equal(msg.result.content[0]?.text, 'key sk-[REDACTED] and sk-[REDACTED]');
    assert.equal(msg.result.content[1]?.data, 'sk-keep');
  });

  it('tool-specific exit: delete_repo only on the sandbox repo', () => {
    const lambda = compileOrThrow(examples[2] ?? '');
    const call = (repo: string) => makeInput({
      context: { proxy_id: 'p', client_ip: '1', tool_name: 'delete_repo' },
      request: { headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'delete_repo', arguments: { repo } } }) },
    });
    assert.deepEqual(lambda.run(call('sandbox')), { kind: 'continue' });
    const out = lambda.run(call('prod'));
    assert.deepEqual(out, { kind: 'exit', status: 403, body: 'delete_repo is allowed on "sandbox" only, not "prod"', headers: {} });
    assert.deepEqual(lambda.run(makeInput()), { kind: 'continue' }); // another tool
  });
});
