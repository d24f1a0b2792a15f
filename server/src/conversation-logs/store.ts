// Conversation logs of LLM proxies with logConversations on. Prompt, completion and the list summaries are sealed
// with the master key (AES-256-GCM, AAD `llmlog:<llm id>:<log id>`), so the database alone reveals nothing of the
// conversation. Retention is 7 days: the purge job deletes older rows and every read ignores them.
import { sharedTextBytes, storableText, TextBytes } from '../db/text.ts';
import type { SecretBox } from '../crypto/secrets.ts';
import type { Queryable } from '../db/db.ts';
import { mapInTurns } from '../turns.ts';

export const LOG_RETENTION_MS = 7 * 86_400_000;
export const SUMMARY_CHARS = 200;

export interface ConversationLog {
  id: string;
  llmId: string;
  credentialId: string;
  tsMs: number;
  model: string;
  status: number;
  streamed: boolean;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  costMicroCents: number;
  pricingVersion: string;
  /**
   * The request body as forwarded to the provider (after prompt_replace and prompt_guard rewrites). The gateway
   * passes its bytes, so that a prompt of tens of MB is never decoded on the event loop; sealed, it reads back as text.
   */
  prompt: string | Buffer;
  /** The generated text, assembled from the JSON answer or the stream. */
  completion: string;
  requestSummary: string;
  responseSummary: string;
}

/**
 * Sealing is AES-GCM and base64 of each text on the event loop, 27–52 µs for a log of 5,400 characters: a flush of
 * 500 logs held the loop for 13–16 ms, and one prompt of 32 MB for 160 ms. Logs are sealed a slice at a time, each
 * about this many characters (a fixed share per log for its three ciphers), about 0.4 ms; a larger text is sealed in
 * pieces of this size, a turn each, into bytes that reach the database without becoming one string here (TextBytes).
 */
const SEAL_PER_TURN = 100_000;
const sealWeight = (l: ConversationLog) => l.prompt.length + l.completion.length + 2_000;

/** A log with its three sealed texts, ready for insertLogs. */
export interface SealedLog {
  log: ConversationLog;
  summary: string;
  prompt: string | TextBytes;
  completion: string | TextBytes;
}

async function sealText(secrets: SecretBox, text: string | Buffer, aad: string): Promise<string | TextBytes> {
  if (text.length <= SEAL_PER_TURN) return secrets.seal(text, aad);
  return new TextBytes(await secrets.sealBytesInTurns(text, aad, SEAL_PER_TURN, sharedTextBytes));
}

export const aadOf = (llmId: string, id: string) => `llmlog:${llmId}:${id}`;

export function summarize(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SUMMARY_CHARS ? `${flat.slice(0, SUMMARY_CHARS - 1)}…` : flat;
}

/**
 * Seals a batch, a slice of the event loop at a time. The writer seals before it opens the batch's transaction, so
 * the transaction is not held open across the turns sealing takes.
 */
export function sealLogs(secrets: SecretBox, logs: readonly ConversationLog[]): Promise<SealedLog[]> {
  return mapInTurns(logs, async (log) => {
    const aad = aadOf(log.llmId, log.id);
    return {
      log,
      summary: secrets.seal(JSON.stringify({ requestSummary: log.requestSummary, responseSummary: log.responseSummary }), aad),
      prompt: await sealText(secrets, log.prompt, aad),
      completion: await sealText(secrets, log.completion, aad),
    };
  }, SEAL_PER_TURN, sealWeight);
}

const LOG_COLUMNS = ['id', 'llm_id', 'credential_id', 'ts_ms', 'model', 'status', 'streamed', 'input_tokens', 'cached_input_tokens',
  'output_tokens', 'cost_micro_cents', 'pricing_version', 'summary_enc', 'prompt_enc', 'completion_enc'].join(', ');
const LOG_TYPES = ['uuid', 'uuid', 'text', 'bigint', 'text', 'int', 'boolean', 'bigint', 'bigint', 'bigint', 'bigint', 'text', 'text', 'text', 'text'];
const params = (type: (t: string) => string) => LOG_TYPES.map((t, i) => `$${i + 1}::${type(t)}`).join(', ');
const LOG_OF_A_LOGGING_PROXY = 'WHERE EXISTS (SELECT 1 FROM llm_proxies p WHERE p.id = l.llm_id AND p.log_conversations)';
const INSERT_BATCH = `INSERT INTO llm_conversation_logs (${LOG_COLUMNS})
  SELECT l.* FROM unnest(${params((t) => `${t}[]`)}) AS l(${LOG_COLUMNS}) ${LOG_OF_A_LOGGING_PROXY} ORDER BY l.ts_ms`;
const INSERT_ONE = `INSERT INTO llm_conversation_logs (${LOG_COLUMNS})
  SELECT l.* FROM (SELECT ${params((t) => t)}) AS l(${LOG_COLUMNS}) ${LOG_OF_A_LOGGING_PROXY}`;

/** A log's column values, in LOG_COLUMNS' order. */
function logValues({ log, summary, prompt, completion }: SealedLog): unknown[] {
  return [log.id, log.llmId, log.credentialId, log.tsMs, storableText(log.model), log.status, log.streamed, log.inputTokens,
    log.cachedInputTokens, log.outputTokens, Math.round(log.costMicroCents), log.pricingVersion, summary, prompt, completion];
}

/**
 * Inserts a sealed batch; logs of proxies deleted meanwhile are dropped. Logs with a large text (sealed as bytes) go
 * one statement each with scalar parameters: as an element of an array parameter, a text of 43 MB took PGlite
 * 2.3 times as long (1.2 s against 0.5 s), and node-postgres escapes every array element on the event loop.
 */
export async function insertLogs(q: Queryable, sealed: readonly SealedLog[]): Promise<void> {
  const large = (x: SealedLog) => x.prompt instanceof TextBytes || x.completion instanceof TextBytes;
  const batch = sealed.filter((x) => !large(x));
  if (batch.length) {
    const rows = batch.map(logValues);
    await q.query(INSERT_BATCH, LOG_TYPES.map((_, i) => rows.map((r) => r[i])));
  }
  for (const x of sealed) if (large(x)) await q.query(INSERT_ONE, logValues(x));
}

interface LogRow {
  [k: string]: unknown;
  id: string;
  seq: number;
  llm_id: string;
  credential_id: string;
  ts_ms: number;
  model: string;
  status: number;
  streamed: boolean;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost_micro_cents: number;
  pricing_version: string;
  summary_enc: string;
  prompt_enc?: string;
  completion_enc?: string;
}

export type LogEntry = Omit<ConversationLog, 'prompt' | 'completion'>;
/** A log as read back: its texts opened. */
export type StoredLog = LogEntry & { prompt: string; completion: string };

function entryOf(secrets: SecretBox, r: LogRow): LogEntry {
  const s = JSON.parse(secrets.open(r.summary_enc, aadOf(r.llm_id, r.id))) as { requestSummary?: unknown; responseSummary?: unknown };
  return {
    id: r.id, llmId: r.llm_id, credentialId: r.credential_id, tsMs: Number(r.ts_ms), model: r.model, status: r.status, streamed: r.streamed,
    inputTokens: Number(r.input_tokens), cachedInputTokens: Number(r.cached_input_tokens), outputTokens: Number(r.output_tokens),
    costMicroCents: Number(r.cost_micro_cents), pricingVersion: r.pricing_version,
    requestSummary: typeof s.requestSummary === 'string' ? s.requestSummary : '',
    responseSummary: typeof s.responseSummary === 'string' ? s.responseSummary : '',
  };
}

const LIST_COLS = 'id, seq, llm_id, credential_id, ts_ms, model, status, streamed, input_tokens, cached_input_tokens, output_tokens, cost_micro_cents, pricing_version, summary_enc';

/**
 * Most recent first. `before` is the id of the last entry of the previous page (a cursor); an id that is not (or no
 * longer) in this proxy's logs gives an empty page.
 */
export async function listLogs(q: Queryable, secrets: SecretBox, llmId: string, o: { limit: number; before?: string; nowMs: number }): Promise<LogEntry[]> {
  const since = o.nowMs - LOG_RETENTION_MS;
  const params: unknown[] = [llmId, since, o.limit];
  let cursor = '';
  if (o.before) {
    params.push(o.before);
    cursor = `AND (ts_ms, seq) < (SELECT ts_ms, seq FROM llm_conversation_logs WHERE id = $4 AND llm_id = $1)`;
  }
  const rows = await q.query<LogRow>(
    `SELECT ${LIST_COLS} FROM llm_conversation_logs WHERE llm_id = $1 AND ts_ms >= $2 ${cursor} ORDER BY ts_ms DESC, seq DESC LIMIT $3`, params);
  return rows.map((r) => entryOf(secrets, r));
}

/** Options follow listLogs' shape so both routes pass the proxy id first and the rest as one object. */
export async function getLog(q: Queryable, secrets: SecretBox, llmId: string, o: { id: string; nowMs: number }): Promise<StoredLog | undefined> {
  const { id, nowMs } = o;
  const rows = await q.query<LogRow>(
    `SELECT ${LIST_COLS}, prompt_enc, completion_enc FROM llm_conversation_logs WHERE llm_id = $1 AND id = $2 AND ts_ms >= $3`,
    [llmId, id, nowMs - LOG_RETENTION_MS]);
  const r = rows[0];
  if (!r) return undefined;
  const aad = aadOf(r.llm_id, r.id);
  return { ...entryOf(secrets, r), prompt: secrets.open(r.prompt_enc ?? '', aad), completion: secrets.open(r.completion_enc ?? '', aad) };
}

/** Bulk delete: all of a proxy's logs, or those older than `beforeMs`. */
export async function deleteLogs(q: Queryable, llmId: string, beforeMs: number | 'all'): Promise<number> {
  const rows = beforeMs === 'all'
    ? await q.query('DELETE FROM llm_conversation_logs WHERE llm_id = $1 RETURNING 1', [llmId])
    : await q.query('DELETE FROM llm_conversation_logs WHERE llm_id = $1 AND ts_ms < $2 RETURNING 1', [llmId, beforeMs]);
  return rows.length;
}

/** The retention purge (jobs/llm-log-purge.ts). */
export async function purgeExpiredLogs(q: Queryable, nowMs: number): Promise<number> {
  const rows = await q.query('DELETE FROM llm_conversation_logs WHERE ts_ms < $1 RETURNING 1', [nowMs - LOG_RETENTION_MS]);
  return rows.length;
}
