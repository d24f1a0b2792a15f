// ReadDataSource: the data source reads with its config; the answer keeps the configured arguments and must be
// wholly known.
import { callHook, client, dataSourceType, type ProviderContext } from './context.ts';
import { decodeObject, encodeDynamicValue } from './cty.ts';
import { hasErrors, toWireDiagnostics } from './diagnostics.ts';
import { finalState } from './state.ts';
import { objectType } from './types-of.ts';
import type { ConfigRequest } from './wire.ts';

export function readDataSource<Client>(context: ProviderContext<Client>) {
  return async (request: ConfigRequest) => {
    const typeName = request.type_name ?? '';
    const dataSource = dataSourceType(context, typeName);
    const type = objectType(dataSource.schema.attributes);
    const config = decodeObject(request.config, type) ?? {};
    const result = await callHook(`Reading ${typeName} failed`, () => dataSource.read(client(context), config));
    if (hasErrors(result.diagnostics) || result.value === undefined) {
      return { state: encodeDynamicValue(null, type), diagnostics: toWireDiagnostics(result.diagnostics, type) };
    }
    const { state, diagnostics } = finalState(dataSource.schema, { ...config, ...result.value }, typeName);
    return { state: encodeDynamicValue(state, type), diagnostics: toWireDiagnostics([...result.diagnostics, ...diagnostics], type) };
  };
}
