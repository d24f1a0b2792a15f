#!/usr/bin/env node
/* global Buffer */
// npm run bench:large-log: how long recording one large conversation log holds the event loop. A proxy with
// logConversations keeps the whole prompt (up to its request-body cap, 32 MB by default) and the completion, sealed
// with the master key; the gateway's accounting writer seals and inserts them (server/src/conversation-logs/store.ts,
// server/src/gateway/llm/accounting-writer.ts). Here that writer records logs whose prompt is --mb MB (the request
// body as the gateway forwards it) on the embedded database, while a 1 ms interval timer on the main thread records
// the gaps between its ticks. A log of 1 KB is the baseline: what the timer shows when nothing large is recorded.
// Gaps while the database thread stores a large row are partly that thread taking the cores (run with
// --v8-pool-size=1, as npm start does, for fewer threads competing).
// Options: --mb LIST (default 1,8,32), --runs N per size (default 3). The longest figures are the largest of the runs.
// With DATABASE_URL set, the logs go to that PostgreSQL (in a schema of their own, dropped at the end) instead.
import { randomBytes, randomUUID } from 'node:crypto';
import { openBenchDb, opt, root, withTickGaps } from './common.mjs';

const SIZES = opt('mb', '1,8,32').split(',').map(Number);
const RUNS = Number(opt('runs', '3'));
const dist = `${root}server/dist/`;
const { SecretBox } = await import(`${dist}crypto/secrets.js`);
const { AccountingWriter } = await import(`${dist}gateway/llm/accounting-writer.js`);
const { silentLogger } = await import(`${dist}log.js`);

const bench = await openBenchDb('bench_large_log');
const db = bench.db;
const userId = randomUUID();
const llmId = randomUUID();
await db.query('INSERT INTO users (id, email, created_at) VALUES ($1, $2, 0)', [userId, 'bench@example.test']);
await db.query(`INSERT INTO llm_proxies (id, user_id, name, provider, log_conversations, created_at) VALUES ($1, $2, 'bench', 'openai', true, 0)`, [llmId, userId]);
const writer = new AccountingWriter(db, new SecretBox(randomBytes(32)), silentLogger, { intervalMs: 3_600_000 });

/** A chat request body of about `bytes` bytes, as the gateway holds it. */
function body(bytes) {
  const words = 'lorem ipsum dolor sit amet, consectetur adipiscing elit ';
  return Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: words.repeat(Math.ceil(bytes / words.length)) }] }));
}

async function record(prompt) {
  const log = {
    id: randomUUID(), llmId, credentialId: '', tsMs: Date.now(), model: 'gpt-4o-mini', status: 200, streamed: false,
    inputTokens: 10, cachedInputTokens: 0, outputTokens: 20, costMicroCents: 1, pricingVersion: 'bench',
    prompt, completion: 'A short answer.', requestSummary: 'lorem ipsum', responseSummary: 'A short answer.',
  };
  const { ms, gaps } = await withTickGaps(async () => {
    writer.addLog(log);
    await writer.flush();
  });
  return { ms, max: Math.max(...gaps), over: gaps.filter((g) => g > 2).length };
}

console.log(`one conversation log per run, ${RUNS} runs per size; gaps between 1 ms timer ticks on the main thread`);
console.log('| prompt | recorded in | longest gap | gaps over 2 ms per run |');
console.log('|---|---|---|---|');
for (const mb of [0.001, ...SIZES]) {
  const prompt = body(mb * 1024 * 1024);
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await record(prompt));
  const label = mb < 1 ? '1 KB (baseline)' : `${mb} MB`;
  const median = runs.map((r) => r.ms).sort((a, b) => a - b)[Math.floor(RUNS / 2)];
  const most = (k) => `${Math.max(...runs.map((r) => r[k])).toFixed(1)} ms`;
  console.log(`| ${label} | ${median.toFixed(0)} ms | ${most('max')} | ${runs.map((r) => r.over).join(', ')} |`);
}
await writer.close();
await bench.close();
