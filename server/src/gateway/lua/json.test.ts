// svc.json: decoding and encoding JSON-RPC bodies safely and faithfully.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LambdaOutcome } from './engine.ts';
import { MAX_DEPTH } from './json.ts';
import { runOnce } from '@tollgate/testkit/lua.ts';

function exitBody(o: LambdaOutcome): string {
  assert.equal(o.kind, 'exit', JSON.stringify(o));
  return o.kind === 'exit' ? o.body : '';
}

/** decode(body) then encode, through a lambda. */
function roundTrip(json: string): string {
  return exitBody(runOnce('svc.response.exit(200, svc.json.encode(svc.json.decode(svc.request.get_body())))',
    { request: { headers: {}, body: json } }));
}

describe('svc.json', () => {
  it('round-trips a JSON-RPC message, keeping key order, empty arrays and nulls', () => {
    const msg = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"list":[],"obj":{},"n":null,"f":1.5,"neg":-3,"big":12345678901,"t":true,"s":"héllo ✓ \\"q\\""}}}';
    assert.equal(roundTrip(msg), msg);
  });

  it('round-trips arrays with nulls in them', () => {
    assert.equal(roundTrip('[1,null,3,[],[null]]'), '[1,null,3,[],[null]]');
  });

  it('decoded values are ordinary Lua values', () => {
    const src = `local m = svc.json.decode('{"id":3,"params":{"name":"echo","tags":["a","b"]},"x":null}')
      svc.response.exit(200, svc.table.concat({ svc.math.type(m.id), m.params.name, #m.params.tags, m.params.tags[2],
        svc.tostring(m.x == svc.json.null), svc.type(m.missing) }, ','))`;
    assert.equal(exitBody(runOnce(src)), 'integer,echo,2,b,true,nil');
  });

  it('encodes Lua tables: sequences as arrays, others as objects, marked empty arrays as []', () => {
    const src = `svc.response.exit(200, svc.json.encode({ list = {1, 2, 3}, empty_obj = {}, empty_arr = svc.json.array(),
      marked = svc.json.array({ 'x' }), nested = { [1] = 'a', [2] = 'b' }, sparse = { [1] = 'a', [3] = 'c' }, n = svc.json.null }))`;
    const parsed = JSON.parse(exitBody(runOnce(src))) as Record<string, unknown>;
    assert.deepEqual(parsed, { list: [1, 2, 3], empty_obj: {}, empty_arr: [], marked: ['x'], nested: ['a', 'b'], sparse: { 1: 'a', 3: 'c' }, n: null });
  });

  it('decode returns nil and a reason for invalid JSON instead of raising', () => {
    const body = exitBody(runOnce('local v, err = svc.json.decode("{oops") svc.response.exit(200, svc.tostring(v) .. "|" .. err)'));
    assert.match(body, /^nil\|.*JSON/);
  });

  it('encode returns nil and a reason for values JSON cannot hold', () => {
    const cases: [string, RegExp][] = [
      ['function() end', /cannot encode a function/],
      ['{ [true] = 1 }', /table key of type boolean/],
      ['0/0', /NaN or infinity/],
      ['(function() local t = {} t.self = t return t end)()', /nesting deeper than 100 \(or a cycle\)/],
    ];
    for (const [value, reason] of cases) {
      const body = exitBody(runOnce(`local s, err = svc.json.encode(${value}) svc.response.exit(200, svc.tostring(s) .. "|" .. svc.tostring(err))`));
      assert.match(body, /^nil\|/, value);
      assert.match(body, reason, value);
    }
  });

  it(`rejects documents nested deeper than ${MAX_DEPTH}`, () => {
    const deep = '['.repeat(MAX_DEPTH + 5) + ']'.repeat(MAX_DEPTH + 5);
    const body = exitBody(runOnce('local v, err = svc.json.decode(svc.request.get_body()) svc.response.exit(200, svc.tostring(err))',
      { request: { headers: {}, body: deep } }));
    assert.match(body, /nesting deeper than 100/);
  });

  it('svc.json.array refuses a table that already has another metatable', () => {
    const o = runOnce('svc.json.array(setmetatable({}, {}))');
    assert.equal(o.kind, 'error');
    assert.match(o.kind === 'error' ? o.message : '', /table already has a metatable/);
  });

  it('keys named like JS prototype members are plain keys', () => {
    assert.equal(roundTrip('{"__proto__":{"polluted":true},"constructor":1}'), '{"__proto__":{"polluted":true},"constructor":1}');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
