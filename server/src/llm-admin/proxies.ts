// LLM proxy records (spec "LLM proxies"): create, list, read (with pin), patch, delete and re-resolve. The provider
// decides the upstream; the provider key is write-only and sealed with AAD `llm:<id>`; every committed change bumps
// the config version and waits for the gateway before returning, so the change is live when the call returns.
import { randomUUID } from 'node:crypto';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import type { InboundAuth } from '../snapshot/snapshot.ts';
import type { Queryable } from '../db/db.ts';
import { proxyCachePrefix } from '../gateway/cache-keys.ts';
import { HttpError } from '../http/errors.ts';
import { parseOr400 } from '../http/validate.ts';
import type { Pin } from '../net/upstream-guard.ts';
import { createGatewayObjects, deleteGatewayObjects, setPluginAuth, setUpstream, stripProxyTags } from '../proxies/gateway-objects.ts';
import { validateInboundAuth } from '../proxies/inbound-auth.ts';
import { assertLlmQuota } from '../quota/quota.ts';
import {
  createLlmProxySchema, normalizeModels, patchLlmProxySchema, READ_ONLY_FIELDS, type PatchLlmProxyInput, type ProviderId,
} from '@tollgate/contract';
import { unixNow, type Services } from '../services.ts';
import { getOwnedLlm, listLlmProxies, toRecord, type LlmProxyRecord, type LlmProxyRow } from './llm-proxy-store.ts';
import { pinProvider, refreshLlmPin, writePin, type PinAttempt } from './provider-pin.ts';
import { upstreamBaseUrl } from './registry.ts';

/** The caller's proxies (records without pin). */
export async function listLlmProxyRecords(s: Services, userId: string): Promise<LlmProxyRecord[]> {
  return (await listLlmProxies(s.db, userId)).map((row) => toRecord(row, s.config.proxyDomain));
}

/** One owned proxy's record with its DNS pin; 404 when it is not the caller's. */
export async function getLlmProxy(s: Services, userId: string, id: string): Promise<LlmProxyRecord & { pin: Pin | null }> {
  const row = await getOwnedLlm(s.db, userId, id);
  return { ...toRecord(row, s.config.proxyDomain), pin: row.pin };
}

function rejectReadOnly(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  for (const [field, reason] of Object.entries(READ_ONLY_FIELDS)) {
    if (Object.hasOwn(body, field)) throw new HttpError(400, `${field}: ${reason}`);
  }
}

function checkDefaultModel(defaultModel: string | null, allowedModels: string[]): void {
  if (defaultModel !== null && allowedModels.length && !allowedModels.includes(defaultModel)) {
    throw new HttpError(400, 'defaultModel: must be one of allowedModels');
  }
}

function sealKey(s: Services, id: string, key: string | null | undefined): string | null {
  return key ? s.secrets.seal(key, `llm:${id}`) : null;
}

function pinOf(s: Services, id: string, provider: ProviderId, attempt: PinAttempt) {
  if (attempt.ok) return attempt.pin;
  // Deployment trouble, not the caller's: the proxy is created and the repin job keeps trying.
  s.log.warn('provider host not pinned; the repin job will retry', { llm: id, provider, reason: attempt.error.message });
  return null;
}

/** Create a proxy from a request body; returns its record. */
export async function createLlmProxy(s: Services, userId: string, body: unknown): Promise<LlmProxyRecord> {
  rejectReadOnly(body);
  const input = parseOr400(createLlmProxySchema, body);
  const auth = await validateInboundAuth(input.auth);
  const allowedModels = normalizeModels(input.allowedModels);
  checkDefaultModel(input.defaultModel, allowedModels);
  await assertLlmQuota(s.db, userId); // fail fast before DNS; checked again under lock below
  const id = randomUUID();
  const pin = pinOf(s, id, input.provider, await pinProvider(s, input.provider));
  const now = unixNow(s.clock);
  const version = await s.db.tx(async (q) => {
    await assertLlmQuota(q, userId);
    await q.query(
      `INSERT INTO llm_proxies (id, user_id, name, provider, allowed_models, default_model, provider_key_enc,
                                log_conversations, auth, budget, pin, created_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9::jsonb, $10::jsonb, $11::jsonb, $12)`,
      [id, userId, input.name, input.provider, JSON.stringify(allowedModels), input.defaultModel,
        sealKey(s, id, input.providerKey), input.logConversations, json(auth), json(input.budget), json(pin), now],
    );
    return createGatewayObjects(q, {
      proxyId: id, kind: 'llm', userId: userId, upstreamUrl: upstreamBaseUrl(s.config, input.provider),
      auth, proxyDomain: s.config.proxyDomain, nowS: now,
    });
  });
  await s.configChanged(version);
  return toRecord(await getOwnedLlm(s.db, userId, id), s.config.proxyDomain);
}

/** SQL NULL for null, JSON text otherwise (so `IS NULL` means "not set" in every jsonb column). */
function json(v: unknown): string | null {
  return v === null || v === undefined ? null : JSON.stringify(v);
}

/** Column updates of a PATCH; values are bound parameters, column names come from this fixed list. */
function columnUpdates(s: Services, id: string, input: PatchLlmProxyInput, auth: InboundAuth | null | undefined): Array<[string, unknown]> {
  const cols: Array<[string, unknown]> = [];
  if (input.name !== undefined) cols.push(['name', input.name]);
  if (input.provider !== undefined) cols.push(['provider', input.provider]);
  if (input.allowedModels !== undefined) cols.push(['allowed_models', JSON.stringify(normalizeModels(input.allowedModels))]);
  if (input.defaultModel !== undefined) cols.push(['default_model', input.defaultModel]);
  if (input.providerKey !== undefined) cols.push(['provider_key_enc', sealKey(s, id, input.providerKey)]);
  if (input.logConversations !== undefined) cols.push(['log_conversations', input.logConversations]);
  if (auth !== undefined) cols.push(['auth', json(auth)]);
  if (input.budget !== undefined) cols.push(['budget', json(input.budget)]);
  return cols;
}

const JSONB_COLUMNS = new Set(['allowed_models', 'auth', 'budget']);

/** A validated PATCH: the body, the checked auth (undefined: unchanged) and the new provider's pin attempt. */
interface Patch {
  input: PatchLlmProxyInput;
  auth: InboundAuth | null | undefined;
  attempt: PinAttempt | undefined;
}

async function applyPatch(s: Services, q: Queryable, row: LlmProxyRow, { input, auth, attempt }: Patch): Promise<number> {
  const allowed = input.allowedModels !== undefined ? normalizeModels(input.allowedModels) : row.allowed_models;
  checkDefaultModel(input.defaultModel !== undefined ? input.defaultModel : row.default_model, allowed);
  const cols = columnUpdates(s, row.id, input, auth);
  const sets = cols.map(([c], i) => `${c} = $${i + 2}${JSONB_COLUMNS.has(c) ? '::jsonb' : ''}`);
  await q.query(`UPDATE llm_proxies SET ${sets.join(', ')} WHERE id = $1`, [row.id, ...cols.map(([, v]) => v)]);
  // Spec: logs exist only while logConversations is true, so switching it off deletes them (in this transaction).
  if (input.logConversations === false && row.log_conversations) await q.query('DELETE FROM llm_conversation_logs WHERE llm_id = $1', [row.id]);
  if (input.provider !== undefined && input.provider !== row.provider) {
    await setUpstream(q, row.id, upstreamBaseUrl(s.config, input.provider));
    // The old pin names the old host; without a fresh answer for the new one the repin job fills it in.
    await writePin(q, row.id, attempt ? pinOf(s, row.id, input.provider, attempt) : null);
  }
  if (auth !== undefined) await setPluginAuth(q, row.id, auth, unixNow(s.clock));
  return bumpConfigVersion(q);
}

/**
 * Change any subset of an owned proxy (PATCH body); returns the record as it is now. The body is read only after
 * the ownership check, so an id that is not the caller's is 404 whatever the body holds.
 */
export async function updateLlmProxy(s: Services, userId: string, id: string, readBody: () => Promise<unknown>): Promise<LlmProxyRecord> {
  const current = await getOwnedLlm(s.db, userId, id);
  const body = await readBody();
  rejectReadOnly(body);
  const input = parseOr400(patchLlmProxySchema, body);
  const auth = input.auth === undefined ? undefined : await validateInboundAuth(input.auth);
  if (Object.values(input).some((v) => v !== undefined)) {
    // DNS happens before the transaction: no row lock is held while a resolver answers.
    const provider = input.provider;
    const attempt = provider !== undefined && provider !== current.provider ? await pinProvider(s, provider) : undefined;
    const version = await s.db.tx(async (q) => applyPatch(s, q, await getOwnedLlm(q, userId, current.id, true), { input, auth, attempt }));
    await s.configChanged(version);
  }
  return toRecord(await getOwnedLlm(s.db, userId, current.id), s.config.proxyDomain);
}

/** Delete an owned proxy with its gateway objects and every key tag naming it, then drop its cache. */
export async function deleteLlmProxy(s: Services, userId: string, ownedId: string): Promise<void> {
  const { id, version } = await s.db.tx(async (q) => {
    const row = await getOwnedLlm(q, userId, ownedId, true);
    await stripProxyTags(q, 'llm', row.id);
    await deleteGatewayObjects(q, row.id);
    // key_budgets, usage history, spend windows and conversation logs cascade from the proxy row.
    await q.query('DELETE FROM llm_proxies WHERE id = $1', [row.id]);
    return { id: row.id, version: await bumpConfigVersion(q) };
  });
  await s.configChanged(version);
  // static_cache entries of an LLM proxy use the same key layout as MCP ones; whatever cannot be dropped now
  // expires with its TTL (at most a day).
  await s.state.delPrefix(proxyCachePrefix(id)).catch((err: unknown) => {
    s.log.warn('could not drop the cache of a deleted LLM proxy', { llm: id, err });
  });
}

/** Refresh the DNS pin of an owned proxy's provider host; 502 (previous pin kept) when the answer is refused. */
export async function reResolveLlmPin(s: Services, userId: string, id: string): Promise<Pin | null> {
  const row = await getOwnedLlm(s.db, userId, id);
  const out = await refreshLlmPin(s, { id: row.id, provider: row.provider, upstreamUrl: row.upstream_url, pin: row.pin });
  if ((out.kind === 'updated' || out.kind === 'rejected') && out.version) await s.configChanged(out.version);
  if (out.kind === 'rejected') {
    s.log.warn('provider host re-resolve refused; keeping the previous pin', { llm: row.id, reason: out.error.message });
    throw new HttpError(502, `Could not pin the provider host: ${out.error.message}`);
  }
  if (out.kind === 'stale') return (await getOwnedLlm(s.db, userId, row.id)).pin;
  return out.pin;
}

