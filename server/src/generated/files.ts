// Every file generated from the schemas, with its repository path. `tollgate gen` writes them; generated.test.ts
// fails when a checked-in copy is stale.
import { buildRouter } from '../api/routes/index.ts';
import { buildOpenApi } from '../api/openapi/document.ts';
import type { Services } from '../services.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { RULES_DOC_PATH, renderRulesDoc } from './rules-doc.ts';
import { RULE_INDEX_PATH, renderRuleIndex } from './rule-index.ts';

export interface GeneratedFile {
  path: string;
  content: string;
}

export async function generatedFiles(): Promise<GeneratedFile[]> {
  // Route registration only closes over the services; nothing is called, so an empty object is enough here.
  const router = buildRouter({} as Services);
  return [
    { path: RULE_INDEX_PATH, content: renderRuleIndex() },
    { path: RULES_DOC_PATH, content: renderRulesDoc() },
    { path: 'docs/openapi.json', content: JSON.stringify(buildOpenApi(router, PACKAGE_VERSION), null, 2) + '\n' },
  ];
}
