// Micro-benchmark of the lambda engine: `npx tsx server/src/gateway/lua/bench.ts`. Prints CPU µs per run (process
// CPU time, so other load on the machine matters less than with wall time). Each case runs in a fresh process would
// be fairer still: V8's type feedback is shared by all lambdas in one process, as it is in the gateway.
import { checkLambdaSource, compileLambda, type LambdaInput } from './engine.ts';

const CASES: Record<string, string> = {
  trivial: 'local x = svc.context.tool_name',
  'read body + exit': `
    local body = svc.request.get_body()
    if body:find('"name":"delete_', 1, true) then svc.response.exit(403, 'denied') end`,
  'header check': `if svc.request.get_header('X-Team') ~= 'blue' then svc.response.exit(403, 'no') end`,
  'json decode + encode': `
    local msg = svc.json.decode(svc.request.get_body())
    msg.params.arguments.secret = nil
    local s = svc.json.encode(msg)`,
};

const body = JSON.stringify({
  jsonrpc: '2.0', id: 7, method: 'tools/call',
  params: { name: 'delete_repo', arguments: { owner: 'acme', repo: 'widgets', secret: 'x'.repeat(200) } },
});
const input: LambdaInput = {
  phase: 'access',
  context: { proxy_id: 'p1', client_ip: '203.0.113.9', tool_name: 'delete_repo', method: 'tools/call' },
  request: { headers: { 'x-team': 'blue', 'content-type': 'application/json' }, body },
  log: () => {},
};

function time(n: number, f: () => void): number {
  for (let i = 0; i < Math.min(n, 5000); i++) f();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

for (const [label, src] of Object.entries(CASES)) {
  const r = compileLambda(src, label);
  if (!r.ok) throw new Error(r.error);
  const outcome = r.lambda.run(input).kind;
  console.log(`${label.padEnd(22)} ${time(30000, () => r.lambda.run(input)).toFixed(1).padStart(7)} µs CPU/run  (${outcome})`);
}
console.log(`${'compile'.padEnd(22)} ${time(300, () => compileLambda(CASES.trivial ?? '', 'c')).toFixed(1).padStart(7)} µs`);
console.log(`${'schema check'.padEnd(22)} ${time(2000, () => checkLambdaSource(CASES['read body + exit'] ?? '')).toFixed(1).padStart(7)} µs`);
