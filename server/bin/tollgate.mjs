#!/usr/bin/env node
// The `tollgate` command. Runs the compiled JavaScript of `npm run build` (server/dist) when it is up to date with the
// sources: no loader, no per-module transform, and no development tools in an install (the image ships no tsx). In a
// development checkout whose build is stale or absent it runs the TypeScript sources through tsx instead, so a fresh
// clone needs no build step. TOLLGATE_RUN_FROM=src forces the sources.
import { isFresh, server } from './compiled.mjs';

let main;
let runtime = 'sources';
if (process.env.TOLLGATE_RUN_FROM !== 'src' && isFresh(server)) {
  ({ main } = await import('../dist/cli/main.js'));
  runtime = 'compiled';
} else {
  const { NO_RUNTIME, registerSources } = await import('./sources.mjs');
  try {
    await registerSources(server);
  } catch (err) {
    if (err.code !== NO_RUNTIME) throw err;
    process.stderr.write(`tollgate: ${err.message}\n`);
    process.exit(1);
  }
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2), runtime);
