// The budget the lambda calls of one request share (budget.ts RequestBudget): instructions and time summed over the
// calls, each call held to the smaller of its own limits and what is left, a spent budget failing a call before it
// runs. The gateway's use of it (one per request, the lambda_error and the refusal) is tested through HTTP in
// gateway/rules/lambda/request-budget.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS, DEFAULT_REQUEST_LIMITS, RequestBudget } from './engine.ts';
import { compileOrThrow, makeInput } from '@tollgate/testkit/lua.ts';

/**
 * Charges `units` instructions in one library call and returns: table.remove is charged by the table's length before
 * it runs (sandbox.ts), and a __len metamethod makes that length anything at no cost. A plain loop would take tens of
 * milliseconds per million instructions and meet the time budget first.
 */
const charging = (units: number) => `svc.table.remove(setmetatable({}, { __len = function() return ${units} end }))`;

describe('the request budget', () => {
  it('is four calls of the per-call budget by default', () => {
    assert.deepEqual(DEFAULT_REQUEST_LIMITS, { instructions: 4 * DEFAULT_LIMITS.instructions, wallMs: 4 * DEFAULT_LIMITS.wallMs });
  });

  it('sums the instructions of every call; the call that crosses it fails, naming the request budget', () => {
    const lambda = compileOrThrow(charging(300_000));
    const request = new RequestBudget({ instructions: 1_000_000, wallMs: 60_000 });
    const outcomes = Array.from({ length: 4 }, () => lambda.run(makeInput(), request));
    assert.deepEqual(outcomes.slice(0, 3).map((o) => o.kind), ['continue', 'continue', 'continue']);
    assert.deepEqual(outcomes[3], {
      kind: 'error', message: 'lambda exceeded the request\'s lambda budget (1000000 instructions for all lambdas of one request)',
    });
    assert.ok(request.instructions > 1_000_000, String(request.instructions));
  });

  it('a spent budget fails the next call before it runs; a new request starts from nothing', () => {
    const logs: string[] = [];
    const lambda = compileOrThrow(`svc.log.info("ran") ${charging(600_000)}`);
    const request = new RequestBudget({ instructions: 1_000_000, wallMs: 60_000 });
    const input = makeInput({ log: (_l, m) => { logs.push(m); } });
    assert.equal(lambda.run(input, request).kind, 'continue');
    assert.equal(lambda.run(input, request).kind, 'error');
    assert.equal(logs.length, 2);
    assert.match(String((lambda.run(input, request) as { message?: string }).message), /request's lambda budget/);
    assert.equal(logs.length, 2, 'the third call did not run');
    assert.equal(lambda.run(input, new RequestBudget({ instructions: 1_000_000, wallMs: 60_000 })).kind, 'continue');
  });

  it('a call keeps its own instruction limit when the request has more left', () => {
    const lambda = compileOrThrow(charging(300_000), { instructions: 200_000 });
    const o = lambda.run(makeInput(), new RequestBudget({ instructions: 10_000_000, wallMs: 60_000 }));
    assert.deepEqual(o, { kind: 'error', message: 'lambda exceeded its instruction budget (200000)' });
  });

  it('sums the time spent inside calls; a call past what is left fails, naming the request budget', () => {
    const lambda = compileOrThrow('while true do end', { instructions: 1e12, wallMs: 60_000 });
    const request = new RequestBudget({ instructions: 1e12, wallMs: 30 });
    assert.deepEqual(lambda.run(makeInput(), request), {
      kind: 'error', message: 'lambda exceeded the request\'s lambda budget (30 ms for all lambdas of one request)',
    });
    assert.ok(request.ms >= 30, String(request.ms));
    assert.equal(request.spent(), 'lambda exceeded the request\'s lambda budget (30 ms for all lambdas of one request)');
  });

  it('without a request budget a call has only its own limits (as before)', () => {
    assert.equal(compileOrThrow(charging(1_900_000)).run(makeInput()).kind, 'continue');
  });
});
