// Loads the operator for its two entry points (bin/tollgate-operator.mjs and `tollgate operator`): operator/dist, the
// compiled JavaScript of `npm run build`, when it is up to date with the sources; otherwise, in a development
// checkout, the TypeScript sources through tsx (so a fresh clone needs no build step). TOLLGATE_RUN_FROM=src forces the
// sources. The freshness rule and the fallback are the server's (server/bin/compiled.mjs, server/bin/sources.mjs).
import { isFresh, operator } from '../../server/bin/compiled.mjs';

export async function loadOperator() {
  let mod;
  let from;
  if (process.env.TOLLGATE_RUN_FROM !== 'src' && isFresh(operator)) {
    mod = await import('../dist/main.js');
    from = 'compiled build in operator/dist';
  } else {
    const { registerSources } = await import('../../server/bin/sources.mjs');
    await registerSources(operator);
    mod = await import('../src/main.ts');
    from = 'TypeScript sources through tsx';
  }
  return {
    /** `--version` names what was loaded, like `tollgate version`; anything else is the operator's own argv. */
    async runOperator(env, argv) {
      if (argv.length === 1 && argv[0] === '--version') {
        process.stdout.write(`tollgate-operator ${mod.OPERATOR_VERSION} (${from}, node ${process.version})\n`);
        return 0;
      }
      return mod.runOperator(env, argv);
    },
  };
}
