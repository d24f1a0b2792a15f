// Loads the operator from its TypeScript sources through tsx, with the workspace packages resolved to their sources
// (the `tollgate-source` condition), so a fresh clone needs no build step. Used by bin/tollgate-operator.mjs and by
// `tollgate operator`.
export async function loadOperator() {
  const { register: registerHooks } = await import('node:module');
  registerHooks('../../server/bin/source-conditions.mjs', import.meta.url);
  const { register } = await import('tsx/esm/api');
  register();
  return import('../src/main.ts');
}
