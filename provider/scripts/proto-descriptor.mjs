// The protobufjs JSON form of the plugin protocol's .proto files, exactly what @grpc/proto-loader's fromJSON takes:
// the compiled build writes it beside the .proto files, the release bundle compiles it in.
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

export const PROTO_DIR = fileURLToPath(new URL('../src/protocol/proto/', import.meta.url));

export function protoDescriptor(dir = PROTO_DIR) {
  // The protobufjs that proto-loader itself uses, so the JSON form matches what its fromJSON reads.
  const protobuf = createRequire(require.resolve('@grpc/proto-loader'))('protobufjs');
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(dir, target);
  root.loadSync(['tfplugin6.proto', 'go-plugin.proto', 'health.proto'], { keepCase: true });
  return root.toJSON();
}
