// Audit events of proxy traffic. Written through the batched AuditWriter (never on the request path's critical
// section), with the proxy owner as user_id. Details hold ids, counts and reasons, never a credential, a token or a
// request/response body.
import type { AuditEvent } from '../audit/writer.ts';
import type { ProxyConfig } from '../snapshot/snapshot.ts';
import { unixNow } from '../services.ts';
import type { GatewayDeps } from './capabilities.ts';
import type { GatewayEventType } from './event-types.ts';

export interface GatewayEvent {
  type: GatewayEventType;
  clientIp: string;
  tool?: string;
  model?: string;
  ruleName?: string;
  details?: Record<string, unknown>;
}

/** Records one event for a proxy. Cheap: it only appends to the writer's buffer. */
export function emitEvent(s: Pick<GatewayDeps, 'audit' | 'metrics' | 'clock'>, proxy: Pick<ProxyConfig, 'id' | 'userId' | 'kind'>, e: GatewayEvent): void {
  s.metrics?.event(proxy.kind, e.type, e.details?.reason);
  s.audit.write(auditEvent(s, proxy, e));
}

export function auditEvent(s: Pick<GatewayDeps, 'clock'>, proxy: Pick<ProxyConfig, 'id' | 'userId' | 'kind'>, e: GatewayEvent): AuditEvent {
  return {
    userId: proxy.userId,
    timestamp: unixNow(s.clock),
    eventType: e.type,
    clientIp: e.clientIp,
    mcpUuid: proxy.kind === 'mcp' ? proxy.id : undefined,
    llmUuid: proxy.kind === 'llm' ? proxy.id : undefined,
    tool: e.tool,
    model: e.model,
    ruleName: e.ruleName,
    details: e.details,
  };
}
