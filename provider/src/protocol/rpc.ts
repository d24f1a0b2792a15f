// One wrapper for every unary RPC: log the call, run the adapter, and turn anything thrown into an error
// diagnostic in a normal reply (terraform shows it; a gRPC error would only say "rpc error").
import type { handleUnaryCall, sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { errorDiagnostic, toWireDiagnostics } from './diagnostics.ts';
import type { Logger } from './log.ts';
import type { WireDiagnostic } from './wire.ts';

export interface WithDiagnostics { diagnostics: WireDiagnostic[] }

export function unary<Request>(name: string, logger: Logger, adapter: (request: Request) => Promise<WithDiagnostics> | WithDiagnostics): handleUnaryCall<Request, WithDiagnostics> {
  return (call: ServerUnaryCall<Request, WithDiagnostics>, callback: sendUnaryData<WithDiagnostics>) => {
    const started = performance.now();
    Promise.resolve()
      .then(() => adapter(call.request))
      .catch((error: unknown) => {
        logger.log('error', `${name} failed`, { error: error instanceof Error ? error.stack : String(error) });
        return { diagnostics: toWireDiagnostics([errorDiagnostic(`${name} failed`, error)]) };
      })
      .then((response) => {
        logger.log('debug', name, { ms: Math.round(performance.now() - started), diagnostics: response.diagnostics.length });
        callback(null, response);
      })
      .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
  };
}

/** For RPCs this provider does not offer: a clear error instead of gRPC's UNIMPLEMENTED. */
export function notSupported(name: string, what: string): (request: unknown) => WithDiagnostics {
  return () => ({ diagnostics: [{ severity: 'ERROR', summary: `${name} is not supported`, detail: `This provider does not offer ${what}.` }] });
}
