#!/usr/bin/env node
// Compiles the provider to plain JavaScript (tsc with tsconfig.build.json) and places the protocol definitions next
// to the compiled protocol modules: the .proto files and descriptor.json, the same definitions pre-parsed (by the
// protobufjs that @grpc/proto-loader itself uses) so that the plugin process does not parse .proto text at start-up.
// The version is compiled in (version.js), so the output runs from any folder without provider/package.json.
// Usage: node provider/scripts/build.mjs [outDir] [--version X.Y.Z]   (default provider/dist, the package.json version)
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { PROTO_DIR, protoDescriptor } from './proto-descriptor.mjs';

const providerDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const versionAt = args.indexOf('--version');
const version = versionAt >= 0 ? args.splice(versionAt, 2)[1] : JSON.parse(readFileSync(join(providerDir, 'package.json'), 'utf8')).version;
if (!version || version.startsWith('--')) { console.error('--version needs a value'); process.exit(2); }
const outDir = resolve(args[0] ?? join(providerDir, 'dist'));
const require = createRequire(import.meta.url);

const tsc = require.resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(providerDir, 'tsconfig.build.json'), '--outDir', outDir], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);

writeFileSync(join(outDir, 'version.js'), `export const PROVIDER_VERSION = ${JSON.stringify(version)};\n`);
rmSync(join(outDir, 'version.js.map'), { force: true });
const outProtos = join(outDir, 'protocol/proto');
cpSync(PROTO_DIR, outProtos, { recursive: true });
writeFileSync(join(outProtos, 'descriptor.json'), JSON.stringify(protoDescriptor()));
// Written last: its mtime is when the whole tree was emitted (provider:install compares the sources with it).
writeFileSync(join(outDir, '.build-stamp'), `${new Date().toISOString()}\n`);
