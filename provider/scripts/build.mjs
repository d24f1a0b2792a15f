#!/usr/bin/env node
// Compiles the provider to plain JavaScript (tsc with tsconfig.build.json) and places the protocol definitions next
// to the compiled protocol modules: the .proto files and descriptor.json, the same definitions pre-parsed (by the
// protobufjs that @grpc/proto-loader itself uses) so that the plugin process does not parse .proto text at start-up.
// Usage: node provider/scripts/build.mjs [outDir]   (default provider/dist)
import { cpSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const providerDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(process.argv[2] ?? join(providerDir, 'dist'));
const require = createRequire(import.meta.url);

const tsc = require.resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(providerDir, 'tsconfig.build.json'), '--outDir', outDir], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);

const sourceProtos = join(providerDir, 'src/protocol/proto');
const outProtos = join(outDir, 'protocol/proto');
cpSync(sourceProtos, outProtos, { recursive: true });
writeFileSync(join(outProtos, 'descriptor.json'), JSON.stringify(protoDescriptor(sourceProtos)));
// Written last: its mtime is when the whole tree was emitted (provider:install compares the sources with it).
writeFileSync(join(outDir, '.build-stamp'), `${new Date().toISOString()}\n`);

/** The protobufjs JSON form of the .proto files, exactly what proto-loader's fromJSON takes. */
function protoDescriptor(dir) {
  const protobuf = createRequire(require.resolve('@grpc/proto-loader'))('protobufjs');
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(dir, target);
  root.loadSync(['tfplugin6.proto', 'go-plugin.proto', 'health.proto'], { keepCase: true });
  return root.toJSON();
}
