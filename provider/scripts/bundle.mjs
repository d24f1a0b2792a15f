#!/usr/bin/env node
// Bundles the provider into one CommonJS file with no imports but Node's own modules: the input of the single
// executable (scripts/release/sea.mjs). The contract is taken from its TypeScript sources, the version and the
// protocol definitions are compiled in, so the file reads nothing from disk.
// Usage: node provider/scripts/bundle.mjs <outFile> [--version X.Y.Z]   (default: provider/package.json's version)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { protoDescriptor } from './proto-descriptor.mjs';

const providerDir = fileURLToPath(new URL('..', import.meta.url));
const srcDir = join(providerDir, 'src');

/** What provider/src/main.ts does, without top-level await, which CommonJS (what a Node SEA runs) cannot hold. */
const entry = `
import { serveProvider } from './src/protocol/server.ts';
import { tollgateProvider } from './src/provider.ts';
serveProvider(tollgateProvider()).catch((error) => {
  process.stderr.write(\`terraform-provider-tollgate: \${error && error.stack || error}\\n\`);
  process.exit(1);
});
`;

/** Replaces the two modules that read files next to themselves with what the bundle carries. */
function compiledIn(version) {
  return {
    name: 'tollgate-compiled-in',
    setup(b) {
      b.onResolve({ filter: /^\.\/version\.ts$/ }, (args) => (resolve(args.resolveDir) === resolve(srcDir) ? { path: 'version', namespace: 'tollgate' } : undefined));
      b.onResolve({ filter: /^\.\/services\.ts$/ }, (args) => (resolve(args.resolveDir) === resolve(srcDir, 'protocol') ? { path: join(providerDir, 'scripts', 'bundled-services.mjs') } : undefined));
      b.onResolve({ filter: /^tollgate:proto-descriptor$/ }, () => ({ path: 'proto-descriptor', namespace: 'tollgate' }));
      b.onLoad({ filter: /^version$/, namespace: 'tollgate' }, () => ({ contents: `export const PROVIDER_VERSION = ${JSON.stringify(version)};`, loader: 'js' }));
      b.onLoad({ filter: /^proto-descriptor$/, namespace: 'tollgate' }, () => ({ contents: JSON.stringify(protoDescriptor()), loader: 'json', resolveDir: providerDir }));
    },
  };
}

/** Writes the bundle; returns esbuild's warnings (as text) so the caller can show them. */
export async function bundleProvider({ outFile, version }) {
  const result = await build({
    stdin: { contents: entry, resolveDir: providerDir, sourcefile: 'terraform-provider-tollgate.js', loader: 'js' },
    outfile: outFile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    conditions: ['tollgate-source'],
    plugins: [compiledIn(version)],
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  });
  const modules = Object.keys(result.metafile.inputs);
  const reads = modules.filter((m) => /provider\/src\/(version|protocol\/services)\.ts$/.test(m));
  if (reads.length) throw new Error(`the bundle still holds modules that read files beside themselves: ${reads.join(', ')}`);
  return { warnings: result.warnings.map((w) => `${w.location?.file ?? ''}: ${w.text}`), modules: modules.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--version');
  const version = at >= 0 ? args.splice(at, 2)[1] : JSON.parse(readFileSync(join(providerDir, 'package.json'), 'utf8')).version;
  if (!args[0] || !version) {
    console.error('usage: node provider/scripts/bundle.mjs <outFile> [--version X.Y.Z]');
    process.exit(2);
  }
  const { warnings, modules } = await bundleProvider({ outFile: resolve(args[0]), version });
  for (const w of warnings) console.error(`warning: ${w}`);
  console.log(`bundled ${modules} modules into ${args[0]} (version ${version})`);
}
