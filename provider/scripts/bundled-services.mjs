// Stands in for provider/src/protocol/services.ts inside the release bundle (provider/scripts/bundle.mjs): the same
// loadPluginServices, but from the protocol definitions compiled into the bundle, because a single executable has
// no folder of .proto files beside it.
import { fromJSON } from '@grpc/proto-loader';
import descriptor from 'tollgate:proto-descriptor';

// Must match provider/src/protocol/services.ts.
const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

export function loadPluginServices() {
  const definition = fromJSON(descriptor, options);
  return {
    provider: service(definition, 'tfplugin6.Provider'),
    controller: service(definition, 'plugin.GRPCController'),
    stdio: service(definition, 'plugin.GRPCStdio'),
    health: service(definition, 'grpc.health.v1.Health'),
  };
}

function service(definition, name) {
  const found = definition[name];
  if (found === undefined || 'format' in found) throw new Error(`service ${name} missing from the protocol definitions`);
  return found;
}
