#!/usr/bin/env node
// The `tollgate` command. Runs the compiled JavaScript of `npm run build` when it is up to date with the sources
// (less memory and CPU: no loader, no per-module transform), and otherwise the TypeScript sources through tsx, so that
// a fresh clone needs no build step. TOLLGATE_RUN_FROM=src forces the sources.
import { compiledIsFresh } from './compiled.mjs';

let main;
let runtime = 'sources';
if (process.env.TOLLGATE_RUN_FROM !== 'src' && compiledIsFresh()) {
  ({ main } = await import('../dist/cli/main.js'));
  runtime = 'compiled';
} else {
  const { register: registerHooks } = await import('node:module');
  registerHooks('./source-conditions.mjs', import.meta.url);
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2), runtime);
