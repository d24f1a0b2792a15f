// Data sources tollgate_mcp_server and tollgate_llm_proxy: an existing proxy by id or name. The computed attributes
// are fields of the answer, described by the contract (the request body's text where the answer has none).
import { createLlmProxySchema, llmProxyRecordSchema, mcpCreateSchema, mcpServerRecordSchema } from '@tollgate/contract';
import type { Attribute } from '../framework/types.ts';
import { recordAttribute, type RecordFact } from '../schema/from-contract.ts';
import { byIdOrName, listed, validateIdOrName, type LookupDataSource } from './lookup.ts';

const key = (d: string): Attribute => ({ type: 'string', optional: true, computed: true, description: d });
const mcp = (fact: RecordFact) => recordAttribute(mcpServerRecordSchema, fact, mcpCreateSchema);
const llm = (fact: RecordFact) => recordAttribute(llmProxyRecordSchema, fact, createLlmProxySchema);

export const mcpServerDataSource: LookupDataSource = {
  schema: {
    version: 0,
    description: 'An existing MCP server, by id or by name.',
    attributes: {
      id: key('The server id; set id or name.'),
      name: key('The server name; set id or name (it must be unique).'),
      url: mcp({ from: 'url' }),
      auth_type: mcp({ from: 'authType' }),
      proxy_host: mcp({ from: 'proxyHost' }),
      tools: mcp({ from: 'tools', type: ['list', 'string'], description: 'Names of the discovered tools.' }),
      tool_pinning: mcp({ from: 'toolPinning' }),
    },
  },
  validate: validateIdOrName,
  read: byIdOrName({
    what: 'MCP server',
    one: (client, id) => client.call('GET /api/mcp/:id', { params: { id } }),
    list: (client) => listed(client.call('GET /api/mcp'), 'servers'),
    toState: (r) => ({ id: r.id, name: r.name, url: r.url, auth_type: r.authType, proxy_host: r.proxyHost, tools: r.tools.map((t) => t.name), tool_pinning: r.toolPinning }),
  }),
};

export const llmProxyDataSource: LookupDataSource = {
  schema: {
    version: 0,
    description: 'An existing LLM proxy, by id or by name.',
    attributes: {
      id: key('The proxy id; set id or name.'),
      name: key('The proxy name; set id or name (it must be unique).'),
      llm_provider: llm({ from: 'provider' }),
      allowed_models: llm({ from: 'allowedModels' }),
      default_model: llm({ from: 'defaultModel' }),
      log_conversations: llm({ from: 'logConversations' }),
      proxy_host: llm({ from: 'proxyHost', description: '<id>.<proxy domain>: the host clients call.' }),
    },
  },
  validate: validateIdOrName,
  read: byIdOrName({
    what: 'LLM proxy',
    one: (client, id) => client.call('GET /api/llm/:id', { params: { id } }),
    list: (client) => listed(client.call('GET /api/llm'), 'proxies'),
    toState: (r) => ({ id: r.id, name: r.name, llm_provider: r.provider, allowed_models: r.allowedModels, default_model: r.defaultModel, log_conversations: r.logConversations, proxy_host: r.proxyHost }),
  }),
};
