// Unit-test helper: an Exchange and the gateway capabilities it needs (../gateway/capabilities.ts) without HTTP, a
// database or a network. The state store is the real in-process one, the clock is settable and audit events are
// collected in an array.
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { AuditEvent } from '@tollgate/server/src/audit/writer.ts';
import { DEFAULT_AUTH, type McpProxyConfig, type Snapshot } from '@tollgate/server/src/snapshot/snapshot.ts';
import { silentLogger } from '@tollgate/server/src/log.ts';
import type { GatewayDeps } from '@tollgate/server/src/gateway/capabilities.ts';
import { MemoryState } from '@tollgate/server/src/state/memory.ts';
import type { Rule } from '@tollgate/contract';
import type { Identity } from '@tollgate/server/src/gateway/inbound-auth/types.ts';
import type { Exchange, RequestFacts } from '@tollgate/server/src/gateway/pipeline/types.ts';

/** The capabilities as the fake provides them: the real in-process state store (tests may read it back). */
export interface FakeDeps extends GatewayDeps {
  readonly state: MemoryState;
}

export interface FakeWorld {
  s: FakeDeps;
  events: AuditEvent[];
  now: { ms: number };
  proxy: McpProxyConfig;
  snapshot: Snapshot;
}

export function fakeWorld(rules: Rule[] = [], proxyOverrides: Partial<McpProxyConfig> = {}): FakeWorld {
  const now = { ms: 1_700_000_000_000 };
  const events: AuditEvent[] = [];
  const s: FakeDeps = {
    state: new MemoryState(() => now.ms),
    clock: { nowMs: () => now.ms },
    log: silentLogger,
    audit: { write: (e) => void events.push(e) },
    metrics: undefined,
    config: { mcpUpstreamTimeoutMs: 300_000, llmUpstreamTimeoutMs: 600_000 },
  };
  const proxy: McpProxyConfig = {
    kind: 'mcp', id: '11111111-1111-4111-8111-111111111111', userId: '22222222-2222-4222-8222-222222222222', name: 'p',
    upstreamUrl: 'https://mcp.example.test/mcp', pin: null, auth: DEFAULT_AUTH, rules, limits: { mcpMaxRespBodyKb: 512, llmMaxRespBodyKb: 2048, mcpMaxReqBodyKb: 4096, llmMaxReqBodyKb: 32768 },
    upstreamToken: undefined, tools: [], resources: [], ...proxyOverrides,
  };
  const snapshot: Snapshot = { version: 1, proxies: new Map([[proxy.id, proxy]]), hosts: new Map(), paths: new Map(), credentialsByHash: new Map() };
  return { s, events, now, proxy, snapshot };
}

export interface FakeRequest {
  ip?: string;
  userAgent?: string;
  tools?: string[];
  method?: string;
  identity?: Partial<Identity>;
  cache?: RequestFacts['cache'];
  body?: string;
  headers?: Record<string, string>;
}

export function fakeExchange(w: FakeWorld, r: FakeRequest = {}): Exchange {
  // A real request object on a socket that never connects: the exchange carries the client address itself.
  const req = new IncomingMessage(new Socket());
  req.headers = { 'user-agent': r.userAgent ?? 'test-agent', ...r.headers };
  return {
    s: w.s, proxy: w.proxy, req, token: 'tgk_test', tokenHash: 'h'.repeat(64),
    clientIp: r.ip ?? '127.0.0.1', userAgent: r.userAgent ?? 'test-agent',
    facts: { method: r.method ?? 'tools/call', tools: r.tools ?? [], cache: r.cache, body: r.body },
    identity: {
      mode: 'svc_api_key', credentialId: 'cred-1', consumerId: 'consumer-1', tags: [], consumerKey: 'consumer-1', apiKeyKey: 'cred-1',
      ...r.identity,
    },
  };
}
