// Provider-level RPCs: metadata, schema, provider configuration and resource validation.
import type { Schema } from '../framework/types.ts';
import { callHook, callValidate, checkAttributes, dataSourceType, resourceType, type ProviderContext } from './context.ts';
import { decodeObject } from './cty.ts';
import { hasErrors, toWireDiagnostics } from './diagnostics.ts';
import { toWireSchema } from './schema.ts';
import { objectType } from './types-of.ts';
import type { ConfigRequest, WireDiagnostic, WireSchema, WireServerCapabilities } from './wire.ts';

export const serverCapabilities: WireServerCapabilities = {
  plan_destroy: true,
  get_provider_schema_optional: true,
  move_resource_state: false,
};

interface ProviderSchemaResponse {
  provider: WireSchema;
  resource_schemas: Record<string, WireSchema>;
  data_source_schemas: Record<string, WireSchema>;
  server_capabilities: WireServerCapabilities;
  diagnostics: WireDiagnostic[];
}

export function getMetadata<Client>(context: ProviderContext<Client>) {
  return () => ({
    server_capabilities: serverCapabilities,
    resources: [...context.resources.keys()].map((type_name) => ({ type_name })),
    data_sources: [...context.dataSources.keys()].map((type_name) => ({ type_name })),
    diagnostics: [],
  });
}

export function getProviderSchema<Client>(context: ProviderContext<Client>) {
  let cached: ProviderSchemaResponse | undefined;
  return (): ProviderSchemaResponse => {
    cached ??= {
      provider: toWireSchema(context.definition.schema),
      resource_schemas: wireSchemas(context.resources),
      data_source_schemas: wireSchemas(context.dataSources),
      server_capabilities: serverCapabilities,
      diagnostics: [],
    };
    return cached;
  };
}

function wireSchemas(types: Map<string, { schema: Schema }>): Record<string, WireSchema> {
  return Object.fromEntries([...types].map(([name, type]) => [name, toWireSchema(type.schema)]));
}

export function validateProviderConfig<Client>(context: ProviderContext<Client>) {
  const type = objectType(context.definition.schema.attributes);
  return (request: ConfigRequest) => {
    const config = decodeObject(request.config, type);
    return { diagnostics: toWireDiagnostics(callValidate('Invalid provider configuration', context.definition.validate?.bind(context.definition), config), type) };
  };
}

export function configureProvider<Client>(context: ProviderContext<Client>) {
  const type = objectType(context.definition.schema.attributes);
  return async (request: ConfigRequest) => {
    const config = decodeObject(request.config, type) ?? {};
    const result = await callHook('Provider configuration failed', () => context.definition.configure(config));
    if (!hasErrors(result.diagnostics) && result.value !== undefined) context.configured = { client: result.value };
    else if (!hasErrors(result.diagnostics)) result.diagnostics.push({ severity: 'error', summary: 'Provider configuration returned no client' });
    return { diagnostics: toWireDiagnostics(result.diagnostics, type) };
  };
}

export function validateResourceConfig<Client>(context: ProviderContext<Client>) {
  return (request: ConfigRequest) => {
    const resource = resourceType(context, request.type_name ?? '');
    const type = objectType(resource.schema.attributes);
    const config = decodeObject(request.config, type);
    const diagnostics = [...checkAttributes(resource.schema.attributes, config), ...callValidate('Invalid configuration', resource.validate?.bind(resource), config)];
    return { diagnostics: toWireDiagnostics(diagnostics, type) };
  };
}

export function validateDataResourceConfig<Client>(context: ProviderContext<Client>) {
  return (request: ConfigRequest) => {
    const dataSource = dataSourceType(context, request.type_name ?? '');
    const type = objectType(dataSource.schema.attributes);
    const config = decodeObject(request.config, type);
    return { diagnostics: toWireDiagnostics(callValidate('Invalid configuration', dataSource.validate?.bind(dataSource), config), type) };
  };
}
