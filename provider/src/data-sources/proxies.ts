// Data sources tollgate_mcp_server and tollgate_llm_proxy: an existing proxy by id or name.
import type { z } from 'zod';
import { PROVIDER_IDS, type llmProxyRecordSchema, type mcpServerRecordSchema } from '@tollgate/contract';
import type { Attribute } from '../framework/types.ts';
import { byIdOrName, validateIdOrName, type LookupDataSource } from './lookup.ts';

const key = (d: string): Attribute => ({ type: 'string', optional: true, computed: true, description: d });
const out = (type: Attribute['type'], description: string): Attribute => ({ type, computed: true, description });

export const mcpServerDataSource: LookupDataSource = {
  schema: {
    version: 0,
    description: 'An existing MCP server, by id or by name.',
    attributes: {
      id: key('The server id; set id or name.'),
      name: key('The server name; set id or name (it must be unique).'),
      url: out('string', 'Upstream MCP endpoint.'),
      auth_type: out('string', 'none or bearer.'),
      proxy_host: out('string', 'The host clients call.'),
      tools: out(['list', 'string'], 'Names of the discovered tools.'),
    },
  },
  validate: validateIdOrName,
  read: byIdOrName<z.output<typeof mcpServerRecordSchema>>({
    what: 'MCP server', one: (id) => `/api/mcp/${id}`, list: '/api/mcp', listKey: 'servers',
    toState: (r) => ({ id: r.id, name: r.name, url: r.url, auth_type: r.authType, proxy_host: r.proxyHost, tools: r.tools.map((t) => t.name) }),
  }),
};

export const llmProxyDataSource: LookupDataSource = {
  schema: {
    version: 0,
    description: 'An existing LLM proxy, by id or by name.',
    attributes: {
      id: key('The proxy id; set id or name.'),
      name: key('The proxy name; set id or name (it must be unique).'),
      llm_provider: out('string', `One of ${PROVIDER_IDS.join(', ')}.`),
      allowed_models: out(['list', 'string'], 'Models clients may use (empty: all).'),
      default_model: out('string', 'Default model, if any.'),
      log_conversations: out('bool', 'Whether conversations are stored.'),
      proxy_host: out('string', 'The host clients call.'),
    },
  },
  validate: validateIdOrName,
  read: byIdOrName<z.output<typeof llmProxyRecordSchema>>({
    what: 'LLM proxy', one: (id) => `/api/llm/${id}`, list: '/api/llm', listKey: 'proxies',
    toState: (r) => ({ id: r.id, name: r.name, llm_provider: r.provider, allowed_models: r.allowedModels, default_model: r.defaultModel, log_conversations: r.logConversations, proxy_host: r.proxyHost }),
  }),
};
