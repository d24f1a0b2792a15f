// Groups a V8 CPU profile (node --cpu-prof) of the gateway into the phases of a request, by the source file of each
// sampled frame. Used by bench/llm-instructions.mjs and bench/mcp-instructions.mjs with --phases.
//
// Why a CPU profile and not callgrind's inclusive costs: callgrind sees V8's JIT-compiled JavaScript as anonymous
// addresses (it reads no perf map), so it can attribute instructions to Node's C++ and V8's builtins but not to a
// source file of the gateway. The profile gives each phase's share of the process's CPU; the instruction counts of
// the same script (callgrind) give the total the shares are applied to.
//
// A sample belongs to the innermost frame on its stack that names a phase: JSON.stringify inside the audit writer is
// the audit phase's, an undici frame under the LLM upstream call is the upstream exchange's. Frames of Node's generic
// internals (streams, events, timers, buffers) name no phase, so they go to their caller's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const own = (dir) => new RegExp(`/server/(?:dist|src)/${dir}`);

/** [phase, test of a frame's url] in priority order for one frame; the first match names the frame's phase. */
const RULES = [
  ['rate limits + budgets (state store)', [own('gateway/rules/rate_limit/'), own('budgets/'), own('state/'), own('gateway/llm/budget-gate'), /node_modules\/(ioredis|redis-parser|@ioredis)\//]],
  ['authentication', [own('gateway/inbound-auth/'), own('keys/'), own('identity/'), own('crypto/')]],
  ['rules', [own('gateway/rules/'), own('gateway/pipeline/'), own('gateway/mcp/message-policy'), own('gateway/mcp/rule-hooks'), own('gateway/llm/rule-handler'), own('gateway/llm/model-policy')]],
  ['accounting', [own('gateway/llm/accounting'), own('gateway/llm/meter'), own('gateway/llm/stream-checkpoints'), own('gateway/llm/charged-details'), own('usage/'), own('pricing/'), own('quota/')]],
  ['audit events + metrics', [own('gateway/events'), own('gateway/event-types'), own('audit/'), own('conversation-logs/'), own('gateway/metrics'), /node_modules\/prom-client\//]],
  ['database client', [own('db/'), /node_modules\/(pg|pg-protocol|pg-pool|@electric-sql)\//]],
  ['upstream exchange (HTTP client)', [own('gateway/upstream/'), own('gateway/llm/upstream'), own('gateway/llm/exchange'), own('gateway/mcp/upstream'), /node_modules\/undici\//, /^node:internal\/deps\/undici/]],
  ['LLM / MCP protocol handling', [own('gateway/llm/'), own('gateway/mcp/')]],
  ['HTTP server + routing', [own('gateway/server'), own('gateway/proxy-handler'), own('gateway/routing'), own('gateway/host-check'), own('http/'), own('net/'), /^node:_http_/, /^node:internal\/http/, /^node:net$/]],
  ['other gateway code', [own('')]],
];

/** Frames that are not JavaScript of any file. */
const SPECIAL = { '(garbage collector)': 'garbage collection', '(program)': 'V8/Node native, unattributed' };

function phaseOf(frame) {
  if (SPECIAL[frame.functionName] && !frame.url) return SPECIAL[frame.functionName];
  if (!frame.url) return undefined;
  for (const [phase, tests] of RULES) if (tests.some((t) => t.test(frame.url))) return phase;
  return undefined;
}

/**
 * Share of the non-idle samples per phase (0..1), from a .cpuprofile file; window: { fromMs, toMs } since the
 * profile's start (the process's start), to leave out start-up and shutdown.
 */
export function phaseShares(profilePath, window = { fromMs: 0, toMs: Infinity }) {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map();
  const classify = (id) => {
    if (memo.has(id)) return memo.get(id);
    const node = byId.get(id);
    const phase = phaseOf(node.callFrame) ?? (parent.has(id) ? classify(parent.get(id)) : 'other (Node internals, libraries)');
    memo.set(id, phase);
    return phase;
  };
  const counts = new Map();
  const self = new Map();
  let total = 0;
  let atMs = 0;
  for (const [i, id] of profile.samples.entries()) {
    atMs += (profile.timeDeltas[i] ?? 0) / 1000;
    if (atMs < window.fromMs || atMs > window.toMs || byId.get(id).callFrame.functionName === '(idle)') continue;
    const p = classify(id);
    counts.set(p, (counts.get(p) ?? 0) + 1);
    const where = frameName(byId.get(id).callFrame);
    self.set(where, (self.get(where) ?? 0) + 1);
    total++;
  }
  const byShare = (m) => new Map([...m].map(([k, c]) => [k, c / total]).sort((a, b) => b[1] - a[1]));
  return { total, shares: byShare(counts), selfShares: byShare(self) };
}

/** `function file:line` of a frame (a CPU or heap profile's callFrame), the file relative to the repository or node_modules. */
export function frameName({ functionName, url, lineNumber }) {
  if (!url) return functionName;
  const file = url.replace(/^file:\/\/.*?\/(server\/|node_modules\/)/, '$1');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/**
 * Prints the phase table; with instructions per request, each phase's share of them too; with top, the functions
 * that took the most samples themselves (self time, not counting what they called).
 */
export function printPhases(title, { total, shares, selfShares }, instructionsPerRequest, top = 0) {
  console.log(`\n${title} (${total} samples)`);
  console.log(`${'phase'.padEnd(36)} ${'share'.padStart(7)}${instructionsPerRequest ? `  ${'instr/req'.padStart(10)}` : ''}`);
  for (const [p, s] of shares) {
    console.log(`${p.padEnd(36)} ${`${(s * 100).toFixed(1)} %`.padStart(7)}${instructionsPerRequest ? `  ${Math.round(s * instructionsPerRequest).toLocaleString('en').padStart(10)}` : ''}`);
  }
  if (!top) return;
  console.log(`\nthe ${top} functions with the most self time`);
  for (const [f, s] of [...selfShares].slice(0, top)) console.log(`${`${(s * 100).toFixed(1)} %`.padStart(7)}  ${f}`);
}

/** The node options that make the gateway write a CPU profile into dir when it exits. */
export const cpuProfArgs = (dir) => ['--cpu-prof', '--cpu-prof-interval', '100', `--cpu-prof-dir=${dir}`];

/**
 * Runs the measured requests against a gateway started with cpuProfArgs(dir), stops it (the profile is written at
 * exit) and prints the phases of the window the requests ran in. gateway: { child, spawnedAt } (Date.now() just
 * before the spawn, so that the window is in the profile's time).
 */
export async function profilePhases(gateway, run, { dir, title, instructionsPerRequest, top }) {
  const fromMs = Date.now() - gateway.spawnedAt;
  await run();
  const toMs = Date.now() - gateway.spawnedAt;
  const exited = new Promise((r) => gateway.child.once('exit', r));
  gateway.child.kill('SIGTERM');
  await exited;
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${gateway.child.pid}.0.`));
  if (!file) throw new Error(`no CPU profile of process ${gateway.child.pid} in ${dir}`);
  printPhases(title, phaseShares(join(dir, file), { fromMs, toMs }), instructionsPerRequest, top);
}
