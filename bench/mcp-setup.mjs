// What the MCP benchmarks share: start an MCP upstream, a Tollgate and the bare proxy, configure a proxy with the
// realistic rule set through the management API, and open MCP sessions. The upstream is bench/mcp-upstream.mjs's raw
// JSON-RPC server unless --sdk-upstream (or --sse, which only the SDK server answers with) asks for the official SDK's.
//
// Topology: with DATABASE_URL (unless --embedded) the API and the gateway are separate processes on one PostgreSQL
// in a throw-away schema, so the gateway's CPU is its own; otherwise one embedded `tollgate serve` (PGlite).
/* global setTimeout */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { tollgateBin, startEnv, startNodeArgs, extraGatewayNodeArgs, api, args, issueBenchPat, opt, otherCores, root, start } from './common.mjs';

export const ACCEPT = 'application/json, text/event-stream';

/** The rule set of the issue: an ip_acl, a rate_limit that never fires, a response_replace and a static_cache. */
export function benchRules() {
  // --rules ip_acl,static_cache keeps only those rule types of the set (what each one costs).
  const only = opt('rules', '');
  return [
    { rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.0/8', '::1/128'] },
    { rule_type: 'rate_limit', tools: ['*'], name: 'generous', match_key: 'api_key', threshold: 1_000_000_000, timespan: 60 },
    { rule_type: 'response_replace', tools: ['*'], pattern: '\\b\\d{4}-\\d{4}-\\d{4}-(\\d{4})\\b', replacement: '[card $1]', regex_flags: '' },
    { rule_type: 'static_cache', tools: ['echo'], cache_ttl: 60, cache_isolation: 'per_identity' },
  ].filter((r) => !only || only.split(',').includes(r.rule_type));
}

/** The upstream's argument (bench/mcp-upstream.mjs): raw unless the SDK server is asked for. */
export function upstreamMode(sse) {
  if (sse) return 'sse';
  return args.includes('--sdk-upstream') ? 'json' : 'raw';
}

/** How the benchmarks' output names the upstream. */
export function upstreamLabel(sse) {
  return { sse: 'SDK McpServer, SSE answers', json: 'SDK McpServer, JSON answers', raw: 'raw JSON-RPC on node:http (--sdk-upstream: the SDK server)' }[upstreamMode(sse)];
}

/**
 * Starts everything and configures the proxy. Options: sse (upstream answers with SSE), pg (PostgreSQL topology),
 * nice, gatewayWrap / bareWrap (a command the process runs under, e.g. valgrind), gatewayNodeArgs (node options of
 * the gateway, e.g. --cpu-prof), startTimeoutMs.
 * Returns the processes, the gateway and bare proxy URLs, the proxy path and the client key, and stop().
 */
export async function startMcpBench({ sse = false, pg = false, nice = '', gatewayWrap, bareWrap, gatewayNodeArgs = [], startTimeoutMs } = {}) {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  const children = [];
  const proc = (name, cores, argv, env, patterns, wrap) => start(name, cores, argv, env, patterns, { nice, wrap, timeoutMs: startTimeoutMs }).then((p) => {
    children.push(p.child);
    return p;
  });
  const stop = () => {
    for (const c of children) c.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    if (pg) spawnSync('psql', [process.env.DATABASE_URL, '-c', `DROP SCHEMA IF EXISTS ${schema} CASCADE`], { stdio: 'ignore' });
  };
  try {
    const upstream = await proc('upstream', otherCores, [join(root, 'bench/mcp-upstream.mjs'), upstreamMode(sse)], {}, { url: /UPSTREAM (\S+)/ });
    const common = {
      TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0',
      TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_LOG_LEVEL: 'info',
      TOLLGATE_CONFIG_POLL_MS: '500',
    };
    const apiListening = /"msg":"management API listening".*?"url":"([^"]+)"/;
    const gatewayListening = /"msg":"gateway listening".*?"url":"([^"]+)"/;
    let tg;
    let pat;
    let gatewaySpawnedAt;
    if (pg) {
      Object.assign(common, { TOLLGATE_DB_SCHEMA: schema, TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64') });
      pat = issueBenchPat(common);
      const apiProc = await proc('api', otherCores, [tollgateBin, 'serve', '--role', 'api'], common, { api: apiListening });
      gatewaySpawnedAt = Date.now();
      tg = await proc('gateway', '0', [...extraGatewayNodeArgs, ...gatewayNodeArgs, tollgateBin, 'serve', '--role', 'gateway'], common, { gateway: gatewayListening }, gatewayWrap);
      tg.api = apiProc.api;
    } else {
      const env = { ...common, TOLLGATE_DATA_DIR: dataDir, TOLLGATE_MASTER_KEY: '', DATABASE_URL: '' };
      gatewaySpawnedAt = Date.now();
      tg = await proc('tollgate', '0', [...startNodeArgs, ...extraGatewayNodeArgs, ...gatewayNodeArgs, tollgateBin, 'serve'], { ...startEnv, ...env }, { pat: /(svc_pat_[A-Za-z0-9_-]+)/, api: apiListening, gateway: gatewayListening }, gatewayWrap);
      pat = tg.pat;
    }
    const bare = await proc('bare proxy', '0', [join(root, 'bench/bare-proxy.mjs'), new URL(upstream.url).origin, 'buffered'], {}, { url: /BARE (\S+)/ }, bareWrap);

    const { server } = await api(tg.api, pat, 'POST', '/api/mcp', { name: 'bench', url: upstream.url });
    await api(tg.api, pat, 'POST', `/api/mcp/${server.id}/tools`);
    if (!args.includes('--no-rules')) await api(tg.api, pat, 'PUT', `/api/mcp/${server.id}/rules`, { rules: benchRules() });
    const { key } = await api(tg.api, pat, 'POST', '/api/keys', { name: 'bench', mcpPermissions: [{ id: server.id, tools: ['*'] }] });
    return {
      upstream, bare, gateway: tg.gateway, gatewayPid: tg.child.pid, barePid: bare.child.pid, gatewayChild: tg.child, gatewaySpawnedAt,
      gatewayPath: `/${server.id}/`, auth: { authorization: `Bearer ${key.key}` }, stop,
    };
  } catch (err) {
    stop();
    throw err;
  }
}

/** Initialises an MCP session through `pool` and returns the headers that carry it. */
export async function openSession(pool, path, auth) {
  // A separate gateway process learns about new config by pub/sub (Redis) or its version poll: wait for it.
  for (let i = 0; i < 120; i++) {
    const r = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...auth }, body: '{"jsonrpc":"2.0","id":0,"method":"ping"}' });
    const text = await r.body.text();
    if (!(r.statusCode === 401 || (r.statusCode === 404 && text.includes('Proxy not found')))) break;
    await new Promise((res) => setTimeout(res, 250));
  }
  const h = { 'content-type': 'application/json', accept: ACCEPT, ...auth };
  const r = await pool.request({ path, method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) });
  await r.body.text();
  const sid = r.headers['mcp-session-id'];
  if (r.statusCode !== 200 || !sid) throw new Error(`initialize failed: ${r.statusCode}`);
  const n = await pool.request({ path, method: 'POST', headers: { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await n.body.text();
  return { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
}

let seq = 0;
/** A request body of the kind; tools/call arguments are unique, so every static_cache lookup misses. */
export function requestBody(kind) {
  const id = ++seq;
  if (kind === 'tools/list') return `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`;
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"order ${id} for card 4111-1111-1111-1111"}}}`;
}
