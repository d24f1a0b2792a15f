// A CDKTF app (TypeScript) declaring Tollgate objects through the generated bindings (provider/cdktf/): an MCP
// proxy, an LLM proxy with a budget, a rule set and a key. `npx tsx main.ts` synthesizes to cdktf.out/ (or
// CDKTF_OUTDIR); then `terraform init && terraform apply` in cdktf.out/stacks/tollgate. CDKTF is no longer
// developed upstream (archived December 2025): plain HCL (examples/terraform) and OpenTofu are first-class.
import { App, TerraformOutput, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { TollgateProvider } from '../../provider/cdktf/providers/tollgate/provider';
import { McpServer } from '../../provider/cdktf/providers/tollgate/mcp-server';
import { LlmProxy } from '../../provider/cdktf/providers/tollgate/llm-proxy';
import { RuleSet } from '../../provider/cdktf/providers/tollgate/rule-set';
import { ApiKey } from '../../provider/cdktf/providers/tollgate/api-key';

interface GatewayOptions {
  mcpUrl: string;
  openaiKey: string;
  monthlyBudgetUsd: number;
}

class GatewayStack extends TerraformStack {
  constructor(scope: Construct, id: string, o: GatewayOptions) {
    super(scope, id);
    // endpoint and token come from TOLLGATE_URL and TOLLGATE_TOKEN.
    new TollgateProvider(this, 'tollgate', {});
    const docs = new McpServer(this, 'docs', { name: 'docs', url: o.mcpUrl, discoverTools: true });
    const openai = new LlmProxy(this, 'openai', {
      name: 'openai',
      llmProvider: 'openai',
      providerKey: o.openaiKey,
      allowedModels: ['gpt-4o-mini'],
      budget: { period: 'monthly', capUsd: o.monthlyBudgetUsd, hardBlock: true },
    });
    new RuleSet(this, 'openai-rules', {
      proxyKind: 'llm',
      proxyId: openai.id,
      rules: [{ ruleType: 'prompt_guard', tools: ['*'], action: 'block', detectors: ['pi_ignore_previous'] }],
    });
    const agent = new ApiKey(this, 'agent', {
      name: 'cdktf-agent',
      mcpPermissions: [{ id: docs.id, tools: ['*'] }],
      llmPermissions: [{ id: openai.id, models: ['*'] }],
    });
    new TerraformOutput(this, 'agent_key', { value: agent.key, sensitive: true });
    new TerraformOutput(this, 'mcp_proxy_host', { value: docs.proxyHost });
    // No remote backend: the state stays beside the synthesized stack.
    this.addOverride('terraform.backend', undefined);
  }
}

const app = new App({ outdir: process.env.CDKTF_OUTDIR ?? 'cdktf.out' });
new GatewayStack(app, 'tollgate', {
  mcpUrl: process.env.MCP_URL ?? 'https://mcp.example.com/mcp',
  openaiKey: process.env.OPENAI_API_KEY ?? '',
  monthlyBudgetUsd: Number(process.env.MONTHLY_BUDGET_USD ?? 100),
});
app.synth();
