// serveProvider: run a provider definition as a terraform plugin process. Checks that terraform started it, serves
// tfplugin6.Provider plus go-plugin's controller, stdio and health services over mutual TLS, prints the handshake
// line, and exits when terraform calls Shutdown or the process is asked to stop.
import * as grpc from '@grpc/grpc-js';
import type { ProviderDefinition } from '../framework/types.ts';
import { createContext } from './context.ts';
import { appProtocolVersion, listenAndAnnounce, requireMagicCookie } from './handshake.ts';
import { stderrLogger, type Logger } from './log.ts';
import { applyResourceChange } from './rpc-apply.ts';
import { readDataSource } from './rpc-data.ts';
import { configureProvider, getMetadata, getProviderSchema, validateDataResourceConfig, validateProviderConfig, validateResourceConfig } from './rpc-provider.ts';
import { importResourceState, planResourceChange, readResource, upgradeResourceState } from './rpc-resource.ts';
import { notSupported, unary } from './rpc.ts';
import { loadPluginServices } from './services.ts';

const maxMessageBytes = 256 << 20; // what terraform's client allows

export async function serveProvider<Client>(definition: ProviderDefinition<Client>): Promise<void> {
  const started = performance.now();
  requireMagicCookie();
  const logger = stderrLogger(`provider.terraform-provider-${definition.typeName}`);
  requireProtocolVersion(logger);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': maxMessageBytes, 'grpc.max_send_message_length': maxMessageBytes });
  const services = loadPluginServices();
  const lifecycle = new Lifecycle(server, logger);
  server.addService(services.provider, providerImplementation(definition, logger));
  server.addService(services.controller, { Shutdown: lifecycle.shutdownRpc });
  server.addService(services.stdio, { StreamStdio: lifecycle.stdioRpc });
  server.addService(services.health, { Check: healthCheck });
  process.once('SIGTERM', () => lifecycle.close('SIGTERM'));
  process.once('SIGINT', () => lifecycle.close('SIGINT'));
  await listenAndAnnounce(server);
  logger.log('debug', 'provider listening', { startup_ms: Math.round(performance.now() - started), uptime_ms: Math.round(process.uptime() * 1000) });
}

function providerImplementation<Client>(definition: ProviderDefinition<Client>, logger: Logger): grpc.UntypedServiceImplementation {
  const context = createContext(definition, logger);
  const rpc = <Request>(name: string, adapter: Parameters<typeof unary<Request>>[2]) => unary(name, logger, adapter);
  return {
    GetMetadata: rpc('GetMetadata', getMetadata(context)),
    GetProviderSchema: rpc('GetProviderSchema', getProviderSchema(context)),
    GetFunctions: rpc('GetFunctions', () => ({ diagnostics: [] })),
    ValidateProviderConfig: rpc('ValidateProviderConfig', validateProviderConfig(context)),
    ValidateResourceConfig: rpc('ValidateResourceConfig', validateResourceConfig(context)),
    ValidateDataResourceConfig: rpc('ValidateDataResourceConfig', validateDataResourceConfig(context)),
    ValidateEphemeralResourceConfig: rpc('ValidateEphemeralResourceConfig', notSupported('ValidateEphemeralResourceConfig', 'ephemeral resources')),
    UpgradeResourceState: rpc('UpgradeResourceState', upgradeResourceState(context)),
    ConfigureProvider: rpc('ConfigureProvider', configureProvider(context)),
    ReadResource: rpc('ReadResource', readResource(context)),
    PlanResourceChange: rpc('PlanResourceChange', planResourceChange(context)),
    ApplyResourceChange: rpc('ApplyResourceChange', applyResourceChange(context)),
    ImportResourceState: rpc('ImportResourceState', importResourceState(context)),
    MoveResourceState: rpc('MoveResourceState', notSupported('MoveResourceState', 'moving state between resource types')),
    ReadDataSource: rpc('ReadDataSource', readDataSource(context)),
    StopProvider: (_call: unknown, callback: grpc.sendUnaryData<{ Error: string }>) => {
      context.stopping = true;
      callback(null, { Error: '' });
    },
  };
}

/** terraform lists the protocol versions it speaks; this provider only speaks 6. */
function requireProtocolVersion(logger: Logger): void {
  const offered = process.env.PLUGIN_PROTOCOL_VERSIONS;
  if (offered === undefined || offered.split(',').map((v) => v.trim()).includes(String(appProtocolVersion))) return;
  logger.log('error', `terraform offers plugin protocol versions ${offered}; this provider needs version ${appProtocolVersion} (terraform 1.0 or later)`);
  process.stderr.write(`This provider speaks plugin protocol ${appProtocolVersion}, but the caller offers only ${offered}.\n`);
  process.exit(1);
}

function healthCheck(_call: unknown, callback: grpc.sendUnaryData<{ status: 'SERVING' }>): void {
  callback(null, { status: 'SERVING' });
}

/** Shutdown: finish in-flight calls, end the stdio streams, exit; forced after a grace period. */
class Lifecycle {
  private readonly streams = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  private closing = false;

  constructor(private readonly server: grpc.Server, private readonly logger: Logger) {}

  readonly shutdownRpc = (_call: unknown, callback: grpc.sendUnaryData<Record<string, never>>): void => {
    callback(null, {});
    setImmediate(() => this.close('Shutdown'));
  };

  readonly stdioRpc = (call: grpc.ServerWritableStream<unknown, unknown>): void => {
    this.streams.add(call);
    call.on('cancelled', () => this.streams.delete(call));
  };

  close(reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.logger.log('debug', 'provider stopping', { reason });
    for (const stream of this.streams) stream.end();
    const force = setTimeout(() => {
      this.server.forceShutdown();
      process.exit(0);
    }, 2000);
    force.unref();
    this.server.tryShutdown(() => process.exit(0));
  }
}
