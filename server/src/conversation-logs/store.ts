// Conversation logs of LLM proxies with logConversations on. Prompt, completion and the list summaries are sealed
// with the master key (AES-256-GCM, AAD `llmlog:<llm id>:<log id>`), so the database alone reveals nothing of the
// conversation. Retention is 7 days: the purge job deletes older rows and every read ignores them.
import { storableText } from '../db/text.ts';
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
  /** The request body as forwarded to the provider (after prompt_replace and prompt_guard rewrites). */
  prompt: string;
  /** The generated text, assembled from the JSON answer or the stream. */
  completion: string;
  requestSummary: string;
  responseSummary: string;
}

/**
 * Sealing is AES-GCM and base64 of each text on the event loop, 27–52 µs for a log of 5,400 characters: a flush of
 * 500 logs held the loop for 13–16 ms. Logs are sealed a slice at a time, each about this many characters (a fixed
 * share per log for its three ciphers), about 0.4 ms.
 */
const SEAL_PER_TURN = 100_000;
const sealWeight = (l: ConversationLog) => l.prompt.length + l.completion.length + 2_000;

export const aadOf = (llmId: string, id: string) => `llmlog:${llmId}:${id}`;

export function summarize(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SUMMARY_CHARS ? `${flat.slice(0, SUMMARY_CHARS - 1)}…` : flat;
}

/** Seals and inserts a batch in one statement; logs of proxies deleted meanwhile are dropped. */
export async function insertLogs(q: Queryable, secrets: SecretBox, logs: readonly ConversationLog[]): Promise<void> {
  if (!logs.length) return;
  const sealed = await mapInTurns(logs, (l) => {
    const aad = aadOf(l.llmId, l.id);
    return {
      summary: secrets.seal(JSON.stringify({ requestSummary: l.requestSummary, responseSummary: l.responseSummary }), aad),
      prompt: secrets.seal(l.prompt, aad),
      completion: secrets.seal(l.completion, aad),
    };
  }, SEAL_PER_TURN, sealWeight);
  const col = <K extends keyof ConversationLog>(k: K) => logs.map((l) => l[k]);
  await q.query(
    `INSERT INTO llm_conversation_logs (id, llm_id, credential_id, ts_ms, model, status, streamed, input_tokens, cached_input_tokens,
                                        output_tokens, cost_micro_cents, pricing_version, summary_enc, prompt_enc, completion_enc)
     SELECT l.* FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::int[], $7::boolean[], $8::bigint[],
                            $9::bigint[], $10::bigint[], $11::bigint[], $12::text[], $13::text[], $14::text[], $15::text[])
              AS l(id, llm_id, credential_id, ts_ms, model, status, streamed, input_tokens, cached_input_tokens, output_tokens,
                   cost_micro_cents, pricing_version, summary_enc, prompt_enc, completion_enc)
      WHERE EXISTS (SELECT 1 FROM llm_proxies p WHERE p.id = l.llm_id AND p.log_conversations)
      ORDER BY l.ts_ms`,
    [col('id'), col('llmId'), col('credentialId'), col('tsMs'), logs.map((l) => storableText(l.model)), col('status'), col('streamed'), col('inputTokens'),
      col('cachedInputTokens'), col('outputTokens'), logs.map((l) => Math.round(l.costMicroCents)), col('pricingVersion'),
      sealed.map((x) => x.summary), sealed.map((x) => x.prompt), sealed.map((x) => x.completion)],
  );
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
export async function getLog(q: Queryable, secrets: SecretBox, llmId: string, o: { id: string; nowMs: number }): Promise<ConversationLog | undefined> {
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
