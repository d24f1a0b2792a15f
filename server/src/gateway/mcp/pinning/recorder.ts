// Records the differences a gateway saw: one row per tool in mcp_tool_changes (a definition already pending with the
// same fingerprint is not written again), the config version bumped and announced so every replica's next snapshot
// judges calls by it, and one `tool_changed` event per new row, with a readable diff. The row decides: when several
// replicas see the same change at once, one of them writes it and records the event. Off the request path: a gateway
// only writes when it sees a definition it did not know, never per request.
import type { Db, Queryable } from '../../../db/db.ts';
import type { McpProxyConfig } from '../../../snapshot/snapshot.ts';
import { bumpConfigVersion, readConfigVersion } from '../../../snapshot/changes.ts';
import { unixNow } from '../../../services.ts';
import type { GatewayDeps } from '../../capabilities.ts';
import { emitEvent } from '../../events.ts';
import { definitionOf } from './definition.ts';
import { diffDefinitions } from './diff.ts';
import type { Observation, PinningView } from './policy.ts';

/** Pending rows one proxy may hold: an upstream that keeps inventing tool names must not fill the database. */
export const MAX_PENDING_PER_PROXY = 1000;

export interface RecorderDeps extends Pick<GatewayDeps, 'audit' | 'metrics' | 'clock' | 'log'> {
  readonly db: Db;
  configChanged(version: number): Promise<void>;
}

export class ToolChangeRecorder {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly s: RecorderDeps) {}

  /**
   * Writes the observations; resolves with the config version from which every snapshot holds them (the bumped one,
   * or the current one when they were all pending already), or undefined when the write failed (logged: the gateway
   * keeps enforcing what it saw and tries again at the next sighting).
   */
  record(proxy: McpProxyConfig, view: PinningView, obs: readonly Observation[]): Promise<number | undefined> {
    const p = this.write(proxy, view, obs).catch((err: unknown) => {
      this.s.log.warn('tool pinning: could not record a tool definition change', { proxy: proxy.id, message: (err as Error).message });
      return undefined;
    });
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  private async write(proxy: McpProxyConfig, view: PinningView, obs: readonly Observation[]): Promise<number> {
    const now = unixNow(this.s.clock);
    const { inserted, version } = await this.s.db.tx(async (q) => {
      const rows = await insertChanges(q, proxy.id, obs, now);
      return { inserted: rows, version: rows.length ? await bumpConfigVersion(q) : await readConfigVersion(q) };
    });
    if (!inserted.length) return version;
    await this.s.configChanged(version);
    for (const o of obs) if (inserted.includes(o.tool)) this.event(proxy, view, o);
    return version;
  }

  private event(proxy: McpProxyConfig, view: PinningView, o: Observation): void {
    const pinned = view.pinned.get(o.tool);
    const { diff, omitted } = diffDefinitions(pinned ? definitionOf(pinned) : null, o.definition);
    emitEvent(this.s, proxy, {
      type: 'tool_changed', clientIp: '', tool: o.tool,
      details: {
        mode: view.mode, change: o.change, pinned_fingerprint: o.pinnedFingerprint, fingerprint: o.fingerprint,
        diff, ...(omitted ? { diff_omitted: omitted } : {}),
      },
    });
  }

  async flush(): Promise<void> {
    while (this.inFlight.size) await Promise.all(this.inFlight);
  }
}

/** Inserts or updates the rows whose fingerprint is new; returns their tool names. */
async function insertChanges(q: Queryable, mcpId: string, obs: readonly Observation[], now: number): Promise<string[]> {
  const [count] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM mcp_tool_changes WHERE mcp_id = $1', [mcpId]);
  let room = MAX_PENDING_PER_PROXY - Number(count?.n ?? 0);
  const out: string[] = [];
  for (const o of obs) {
    const rows = await q.query<{ tool: string; inserted: boolean }>(
      `INSERT INTO mcp_tool_changes (mcp_id, tool, fingerprint, definition, detected_at) VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (mcp_id, tool) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, definition = EXCLUDED.definition, detected_at = EXCLUDED.detected_at
       WHERE mcp_tool_changes.fingerprint <> EXCLUDED.fingerprint
       RETURNING tool, (xmax = 0) AS inserted`,
      [mcpId, o.tool, o.fingerprint, JSON.stringify(o.definition), now]);
    if (!rows[0]) continue;
    if (rows[0].inserted && --room < 0) throw new Error(`more than ${MAX_PENDING_PER_PROXY} pending tool changes`);
    out.push(o.tool);
  }
  return out;
}
