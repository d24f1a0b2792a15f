// The tollgate provider: configured by endpoint and token (or TOLLGATE_URL / TOLLGATE_TOKEN), with the resources
// and data sources of docs/terraform.md (one reference page each under docs/terraform/).
import type { ProviderDefinition } from './framework/types.ts';
import { ApiClient } from '@tollgate/contract';
import { errorDiagnostic } from './client/diagnostics.ts';
import { str } from './resources/values.ts';
import { mcpServerResource } from './resources/mcp-server.ts';
import { mcpResourceResource } from './resources/mcp-resource.ts';
import { llmProxyResource } from './resources/llm-proxy.ts';
import { apiKeyResource } from './resources/api-key.ts';
import { ruleSetResource } from './resources/rule-set.ts';
import { llmKeyBudgetResource } from './resources/llm-key-budget.ts';
import { profileDataSource } from './data-sources/profile.ts';
import { llmProxyDataSource, mcpServerDataSource } from './data-sources/proxies.ts';
import { PROVIDER_VERSION } from './version.ts';

export { PROVIDER_VERSION };

export function tollgateProvider(env: NodeJS.ProcessEnv = process.env): ProviderDefinition<ApiClient> {
  return {
    typeName: 'tollgate',
    schema: {
      version: 0,
      description: 'Tollgate: MCP servers and LLM providers behind one policy point.',
      attributes: {
        endpoint: { type: 'string', optional: true, description: 'Base URL of the management API, e.g. http://127.0.0.1:3000. Default: TOLLGATE_URL.' },
        token: { type: 'string', optional: true, sensitive: true, description: 'A personal access token. Default: TOLLGATE_TOKEN.' },
      },
    },
    async configure(config) {
      const endpoint = str(config, 'endpoint') ?? env.TOLLGATE_URL;
      const token = str(config, 'token') ?? env.TOLLGATE_TOKEN;
      const diagnostics = [];
      if (!endpoint) diagnostics.push(errorDiagnostic('Missing Tollgate endpoint', 'Set endpoint in the provider block or TOLLGATE_URL.', ['endpoint']));
      else if (!/^https?:\/\//.test(endpoint)) diagnostics.push(errorDiagnostic('Invalid Tollgate endpoint', `endpoint: must be an http(s) URL, got "${endpoint}"`, ['endpoint']));
      if (!token) diagnostics.push(errorDiagnostic('Missing Tollgate token', 'Set token in the provider block or TOLLGATE_TOKEN (a personal access token).', ['token']));
      if (diagnostics.length || !endpoint || !token) return { diagnostics };
      return { value: new ApiClient({ endpoint, token, userAgent: `terraform-provider-tollgate/${PROVIDER_VERSION}` }), diagnostics: [] };
    },
    resources: {
      tollgate_mcp_server: mcpServerResource,
      tollgate_mcp_resource: mcpResourceResource,
      tollgate_llm_proxy: llmProxyResource,
      tollgate_api_key: apiKeyResource,
      tollgate_rule_set: ruleSetResource,
      tollgate_llm_key_budget: llmKeyBudgetResource,
    },
    dataSources: {
      tollgate_profile: profileDataSource,
      tollgate_mcp_server: mcpServerDataSource,
      tollgate_llm_proxy: llmProxyDataSource,
    },
  };
}
