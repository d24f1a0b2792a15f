// The gRPC service definitions. From the sources they are parsed from this folder's .proto files; the build
// (provider/scripts/build.mjs) also writes proto/descriptor.json, the same definitions pre-parsed, because parsing
// .proto text costs ~30-100 ms at every start of the plugin process and terraform starts several per command.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { fromJSON, loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

export interface PluginServices {
  provider: ServiceDefinition;
  controller: ServiceDefinition;
  stdio: ServiceDefinition;
  health: ServiceDefinition;
}

export const protoDir = fileURLToPath(new URL('./proto/', import.meta.url));
export const protoFiles = ['tfplugin6.proto', 'go-plugin.proto', 'health.proto'];
const options: Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

export function loadPluginServices(dir = protoDir): PluginServices {
  const descriptor = `${dir}descriptor.json`;
  const definition = existsSync(descriptor)
    ? fromJSON(JSON.parse(readFileSync(descriptor, 'utf8')), options)
    : loadSync(protoFiles, { ...options, includeDirs: [dir] });
  return {
    provider: service(definition, 'tfplugin6.Provider'),
    controller: service(definition, 'plugin.GRPCController'),
    stdio: service(definition, 'plugin.GRPCStdio'),
    health: service(definition, 'grpc.health.v1.Health'),
  };
}

function service(definition: PackageDefinition, name: string): ServiceDefinition {
  const found = definition[name];
  if (found === undefined || 'format' in found) throw new Error(`service ${name} missing from the protocol definitions`);
  return found;
}
