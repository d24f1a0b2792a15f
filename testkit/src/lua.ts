// Helpers for the Lua engine's tests (gateway/lua/): compile-or-throw and a default input.
import { compileLambda, type CompiledLambda, type LambdaInput, type LambdaLimits, type LambdaOutcome } from '@tollgate/server/src/gateway/lua/engine.ts';

export interface LogLine { level: string; message: string }

/**
 * Tests get a generous wall-clock budget unless they set one: on a loaded CI machine a GC pause can exceed 50 ms,
 * and only the tests about the clock should depend on it (the instruction budget still stops runaway code).
 */
export function compileOrThrow(source: string, limits?: Partial<LambdaLimits>): CompiledLambda {
  const r = compileLambda(source, 'test', { wallMs: 10_000, ...limits });
  if (!r.ok) throw new Error(`compile failed: ${r.error}`);
  return r.lambda;
}

export function makeInput(overrides: Partial<LambdaInput> = {}, logs: LogLine[] = []): LambdaInput {
  return {
    phase: 'access',
    context: { proxy_id: 'proxy-1', client_ip: '203.0.113.7', tool_name: 'echo', method: 'tools/call', credential_id: 'cred-1' },
    request: { headers: { 'content-type': 'application/json', 'x-team': 'blue' }, body: '{"jsonrpc":"2.0","id":1}' },
    log: (level, message) => { logs.push({ level, message }); },
    ...overrides,
  };
}

/** Compiles and runs once. */
export function runOnce(source: string, overrides: Partial<LambdaInput> = {}, limits?: Partial<LambdaLimits>): LambdaOutcome {
  return compileOrThrow(source, limits).run(makeInput(overrides));
}

/** Runs a chunk that returns nothing useful and reports, through svc.log, the values of Lua expressions. */
export function evalLua(exprs: string[], overrides: Partial<LambdaInput> = {}): { outcome: LambdaOutcome; values: string[] } {
  const logs: LogLine[] = [];
  const src = exprs.map((e) => `svc.log.info(svc.tostring(${e}))`).join('\n');
  const outcome = compileOrThrow(src).run(makeInput(overrides, logs));
  return { outcome, values: logs.map((l) => l.message) };
}
