// Running a workspace from its TypeScript sources, the fallback of the entry points (server/bin/tollgate.mjs,
// operator/bin/load.mjs) when its build is stale or absent: the `tollgate-source` export condition (so that
// `@tollgate/contract` resolves to its src/ too) and the tsx loader. tsx is a development dependency of the root
// package, so this works in a checkout with its dev dependencies and nowhere else; elsewhere the error says what to do.
import { existsSync } from 'node:fs';
import { register } from 'node:module';

/** The error of an install that can run neither its build nor its sources: the entry points print its message alone. */
export const NO_RUNTIME = 'TOLLGATE_NO_RUNTIME';

function noRuntime(message) {
  return Object.assign(new Error(message), { code: NO_RUNTIME });
}

/** Registers the loaders for `ws` (a workspace of compiled.mjs), or throws a NO_RUNTIME error naming the way out. */
export async function registerSources(ws) {
  const build = `run \`npm run build\``;
  if (!existsSync(ws.srcDir)) throw noRuntime(`${ws.name}/dist is missing or incomplete, and ${ws.name}/src is not here to run instead: ${build}`);
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch (err) {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw noRuntime(`${ws.name}/dist is stale or missing, and running ${ws.name}/src needs tsx, a development dependency: ${build}, or install the dev dependencies (npm ci)`);
  }
  register('./source-conditions.mjs', import.meta.url);
  tsx.register();
}
