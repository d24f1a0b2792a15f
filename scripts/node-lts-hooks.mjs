// Preloaded (NODE_OPTIONS=--import) into every Node LTS process of scripts/test-lts.sh: `re2` resolves to the copy
// scripts/node-lts.sh compiled for the LTS, because the shared node_modules holds the build for the development Node,
// whose ABI the LTS refuses. The copy's directory is this module's `re2` query parameter, so it travels inside
// NODE_OPTIONS to every child process, also those whose tests strip Tollgate's variables from the environment.
// Synchronous hooks cover import and require alike; a Node without them (the development Node, should one inherit
// NODE_OPTIONS) keeps its own re2.
import * as mod from 'node:module';
import { pathToFileURL } from 'node:url';

const dir = new URL(import.meta.url).searchParams.get('re2');

if (dir && typeof mod.registerHooks === 'function') {
  // The copy's own entry point (its package.json "main"), resolved before the hook exists.
  const url = pathToFileURL(mod.createRequire(import.meta.url).resolve(dir)).href;
  mod.registerHooks({
    resolve(specifier, context, next) {
      return specifier === 're2' ? { url, shortCircuit: true } : next(specifier, context);
    },
  });
}
