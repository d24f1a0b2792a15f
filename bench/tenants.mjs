// Many tenants written straight into a migrated database, for the benchmarks of what their number costs
// (bench:snapshot-load, bench:api-write): each user has one MCP server (twelve tools in its catalog), one LLM proxy,
// two rules on each and five client keys, with the gateway objects the API would have made.
const tool = (i) => ({
  name: `tool_${i}`, description: 'Looks a thing up and says what it found, with the sources it used. '.repeat(3),
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, fingerprint: 'f'.repeat(64),
});
const tools = JSON.stringify(Array.from({ length: 12 }, (_, i) => tool(i)));
const rules = JSON.stringify([
  { rule_type: 'ip_acl', enabled: true, tools: ['*'], mode: 'allow', cidrs: ['10.0.0.0/8'] },
  { rule_type: 'rate_limit', enabled: true, tools: ['*'], requests: 100, window_seconds: 60 },
]);

/** Inserts `count` such users (ids derived from md5('u'||i), consumers from md5('c'||i)); `db` is a Tollgate Db. */
export async function insertTenants(db, count) {
  if (count <= 0) return;
  const users = `generate_series(1, ${count}) i`;
  await db.exec(`
INSERT INTO users (id, email, created_at) SELECT md5('u'||i)::uuid, 'u'||i||'@bench.test', 0 FROM ${users};
INSERT INTO consumers (id, user_id, username, tags) SELECT md5('c'||i)::uuid, md5('u'||i)::uuid, 'u'||i, ARRAY['private:permissions:user'] FROM ${users};
INSERT INTO mcp_servers (id, user_id, name, url, tools, created_at)
  SELECT md5('m'||i)::uuid, md5('u'||i)::uuid, 'm'||i, 'https://mcp.example.test/mcp', '${tools}'::jsonb, 0 FROM ${users};
INSERT INTO llm_proxies (id, user_id, name, provider, created_at) SELECT md5('l'||i)::uuid, md5('u'||i)::uuid, 'l'||i, 'openai', 0 FROM ${users};
INSERT INTO gateway_services (id, proxy_id, proxy_kind, user_id, upstream_url, created_at)
  SELECT md5('sm'||i)::uuid, md5('m'||i)::uuid, 'mcp', md5('u'||i)::uuid, 'https://mcp.example.test/mcp', 0 FROM ${users}
  UNION ALL SELECT md5('sl'||i)::uuid, md5('l'||i)::uuid, 'llm', md5('u'||i)::uuid, 'https://api.openai.com', 0 FROM ${users};
INSERT INTO gateway_routes (id, service_id, kind, match)
  SELECT gen_random_uuid(), s.id, 'path', '/'||s.proxy_id FROM gateway_services s JOIN ${users} ON s.user_id = md5('u'||i)::uuid;
INSERT INTO gateway_routes (id, service_id, kind, match)
  SELECT gen_random_uuid(), s.id, 'host', s.proxy_id||'.proxy.localhost' FROM gateway_services s JOIN ${users} ON s.user_id = md5('u'||i)::uuid;
INSERT INTO gateway_plugins (id, service_id, rules, updated_at)
  SELECT gen_random_uuid(), s.id, '${rules}'::jsonb, 0 FROM gateway_services s JOIN ${users} ON s.user_id = md5('u'||i)::uuid;
INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, created_at)
  SELECT gen_random_uuid(), md5('c'||i)::uuid, md5('k'||i||'-'||j), 'tgk_ab',
         ARRAY['name:k'||j, 'private:permissions:mcp', 'mcp:'||md5('m'||i)::uuid||':tool:*', 'llm:'||md5('l'||i)::uuid||':model:*'], 0
    FROM ${users}, generate_series(1, 5) j;
`);
}
