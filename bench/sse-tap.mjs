#!/usr/bin/env node
// npm run bench:sse-tap — what the LLM accounting tap costs per stream chunk when no text is collected, read on the
// bytes (server/src/gateway/upstream/sse-skim.ts, what the gateway runs) against every event decoded and parsed as
// strings (SseParser, what it ran before, and still runs when text is collected), in the same run, on the compiled
// build. Each is counted by valgrind's callgrind in a process of its own, at --streams and five times as many streams
// of the benchmark upstream's chunks (bench/llm-upstream.mjs: 20 content chunks, the usage chunk, [DONE]); the
// difference divided by the extra chunks leaves out start-up and compilation. The counted child runs with V8's
// --single-threaded: the work of its concurrent compiler and GC threads, which callgrind counts too, otherwise falls
// differently in each run (per-chunk figures spread by 2×; with the flag, runs agree within 0.1 %). Also prints CPU time per chunk without
// valgrind (varies with the host's load; the instructions do not). `--large` instead reads one event of 1 MB and of
// 8 MB in 16 KB reads with each SSE reader (both taps and the MCP stream's splitter) and prints the CPU per MB of each
// size: equal per-MB figures mean a cost linear in the event's size (docs/performance.md, "One large event").
/* global Buffer */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { args, opt } from './common.mjs';
import { formatCount } from './callgrind.mjs';

const dist = new URL('../server/dist/', import.meta.url);
const CONTENT = 20;
const PUSHES = CONTENT + 2;

if (args[0] === '--child') await child(args[1], Number(args[2]));
else if (args.includes('--large')) await large();
else main();

async function large() {
  const { sseTap } = await import(new URL('gateway/llm/meter.js', dist).href);
  const { SseParser, SseSplitter } = await import(new URL('gateway/upstream/sse.js', dist).href);
  const { openai } = await import(new URL('gateway/llm/providers/openai/index.js', dist).href);
  const readers = {
    'LLM tap, decoded': (r) => new SseParser((e, d) => r.onEvent(e, d), 1 << 24),
    'LLM tap, on the bytes': (r) => sseTap(r, false, 1 << 24),
    'MCP stream splitter': () => new SseSplitter(1 << 24),
  };
  const usage = '"usage":{"prompt_tokens":1,"completion_tokens":7,"total_tokens":8}';
  for (const [name, make] of Object.entries(readers)) {
    const perMb = [];
    for (const mb of [1, 8]) {
      const wire = Buffer.from(`data: {"choices":[{"delta":{"content":"${'x'.repeat(mb << 20)}"}}],${usage}}\n\ndata: [DONE]\n\n`);
      const times = [];
      for (let k = 0; k < 5; k++) {
        const reader = openai.streamReader({ kind: 'chat' }, { text: false });
        const sse = make(reader);
        const t0 = process.cpuUsage();
        for (let at = 0; at < wire.length; at += 16384) sse.push(wire.subarray(at, at + 16384));
        sse.end();
        const t = process.cpuUsage(t0);
        times.push((t.user + t.system) / 1000 / mb);
      }
      perMb.push(times.sort((a, b) => a - b)[2]);
    }
    console.log(`${name}: ${perMb[0].toFixed(2)} ms of CPU per MB at 1 MB, ${perMb[1].toFixed(2)} at 8 MB (8 MB ÷ 1 MB per MB: ${(perMb[1] / perMb[0]).toFixed(2)})`);
  }
}

async function child(mode, streams) {
  const { sseTap } = await import(new URL('gateway/llm/meter.js', dist).href);
  const { SseParser } = await import(new URL('gateway/upstream/sse.js', dist).href);
  const { openai } = await import(new URL('gateway/llm/providers/openai/index.js', dist).href);
  const head = '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1744136814,"model":"gpt-4o-mini"';
  const content = Buffer.from(`data: ${head},"system_fingerprint":"fp_b376dfbbd5","choices":[{"index":0,"delta":{"content":"hello"},"logprobs":null,"finish_reason":null}]}\n\n`);
  const usage = Buffer.from(`data: ${head},"choices":[],"usage":{"prompt_tokens":19,"completion_tokens":${CONTENT},"total_tokens":${19 + CONTENT}}}\n\n`);
  const done = Buffer.from('data: [DONE]\n\n');
  let check = 0;
  const one = () => {
    const reader = openai.streamReader({ kind: 'chat' }, { text: false });
    const tap = mode === 'bytes' ? sseTap(reader, false, 1 << 21) : new SseParser((e, d) => reader.onEvent(e, d), 1 << 21);
    for (let i = 0; i < CONTENT; i++) tap.push(content);
    tap.push(usage);
    tap.push(done);
    tap.end();
    check += reader.usage().outputTokens === CONTENT ? 1 : 0;
  };
  // Warm-up: by then V8 has optimised the loop.
  for (let i = 0; i < 3000; i++) one();
  const t0 = process.cpuUsage();
  for (let i = 0; i < streams; i++) one();
  const t = process.cpuUsage(t0);
  if (check !== streams + 3000) throw new Error(`usage missed in ${streams + 3000 - check} streams`);
  console.log(JSON.stringify({ cpuNsPerChunk: ((t.user + t.system) * 1000) / (streams * PUSHES) }));
}

function run(mode, streams, valgrind) {
  const self = fileURLToPath(import.meta.url);
  const cmd = valgrind ? ['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--single-threaded'] : [process.execPath];
  const r = spawnSync(cmd[0], [...cmd.slice(1), self, '--child', mode, String(streams)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${mode} ${streams}: ${r.stderr}`);
  const collected = /Collected : (\d+)/.exec(r.stderr);
  return { instructions: collected ? Number(collected[1]) : undefined, ...JSON.parse(r.stdout.trim().split('\n').at(-1)) };
}

function main() {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.error('valgrind is not installed (Debian package valgrind)');
    process.exit(2);
  }
  const n = Number(opt('streams', '10000'));
  const rows = {};
  for (const mode of ['decoded', 'bytes']) {
    process.stdout.write(`${mode}: ${n} and ${5 * n} streams under callgrind... `);
    const a = run(mode, n, true);
    const b = run(mode, 5 * n, true);
    const perChunk = (b.instructions - a.instructions) / (4 * n * PUSHES);
    const cpu = run(mode, 10 * n, false).cpuNsPerChunk;
    rows[mode] = { perChunk, cpu };
    console.log(`${formatCount(perChunk)} instructions per chunk; ${cpu.toFixed(0)} ns of CPU per chunk without valgrind`);
  }
  console.log(`\nread on the bytes ÷ decoded: instructions ${(rows.bytes.perChunk / rows.decoded.perChunk).toFixed(2)}, CPU ${(rows.bytes.cpu / rows.decoded.cpu).toFixed(2)}`);
  console.log(JSON.stringify(rows));
}
