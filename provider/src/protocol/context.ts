// What every RPC adapter shares within one provider process: the definition, the configured client (set by
// ConfigureProvider), type lookups and the logger. Adapters throw on misuse; the RPC wrapper reports it.
import type { Attribute, DataSourceType, Diagnostic, ObjectValue, ProviderDefinition, ResourceType, Result } from '../framework/types.ts';
import { errorDiagnostic } from './diagnostics.ts';
import type { Logger } from './log.ts';

export interface ProviderContext<Client> {
  definition: ProviderDefinition<Client>;
  logger: Logger;
  resources: Map<string, ResourceType<Client>>;
  dataSources: Map<string, DataSourceType<Client>>;
  configured: { client: Client } | undefined;
  stopping: boolean;
}

export function createContext<Client>(definition: ProviderDefinition<Client>, logger: Logger): ProviderContext<Client> {
  return {
    definition,
    logger,
    resources: byTypeName(definition.typeName, definition.resources),
    dataSources: byTypeName(definition.typeName, definition.dataSources),
    configured: undefined,
    stopping: false,
  };
}

/** Keys are full type names ("tollgate_api_key"); a key without the provider prefix ("api_key") gets it. */
function byTypeName<T>(prefix: string, types: Record<string, T>): Map<string, T> {
  return new Map(Object.entries(types).map(([key, type]) => [key.startsWith(`${prefix}_`) ? key : `${prefix}_${key}`, type]));
}

export function resourceType<Client>(context: ProviderContext<Client>, typeName: string): ResourceType<Client> {
  const found = context.resources.get(typeName);
  if (found === undefined) throw new Error(`this provider has no resource type ${JSON.stringify(typeName)}`);
  return found;
}

export function dataSourceType<Client>(context: ProviderContext<Client>, typeName: string): DataSourceType<Client> {
  const found = context.dataSources.get(typeName);
  if (found === undefined) throw new Error(`this provider has no data source ${JSON.stringify(typeName)}`);
  return found;
}

export function client<Client>(context: ProviderContext<Client>): Client {
  if (context.configured === undefined) throw new Error('the provider was used before ConfigureProvider succeeded');
  return context.configured.client;
}

/** Runs a resource hook; a throw becomes an error diagnostic so the adapter can still answer with a state. */
export async function callHook<T>(summary: string, hook: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    const result = await hook();
    return { value: result.value, diagnostics: result.diagnostics ?? [] };
  } catch (error) {
    return { diagnostics: [errorDiagnostic(summary, error)] };
  }
}

/** Synchronous validation hooks: a throw becomes an error diagnostic. */
export function callValidate(summary: string, validate: ((config: ObjectValue) => Diagnostic[]) | undefined, config: ObjectValue | null): Diagnostic[] {
  if (validate === undefined || config === null) return [];
  try {
    return validate(config);
  } catch (error) {
    return [errorDiagnostic(summary, error)];
  }
}

/** The contract checks of the top-level attributes that have one (Attribute.check), on the values already known. */
export function checkAttributes(attributes: Record<string, Attribute>, config: ObjectValue | null): Diagnostic[] {
  if (config === null) return [];
  const out: Diagnostic[] = [];
  for (const [name, attr] of Object.entries(attributes)) {
    const value = config[name];
    const problem = attr.check && typeof value === 'string' ? attr.check(value) : undefined;
    if (problem) out.push({ severity: 'error', summary: 'Invalid value', detail: `${name}: ${problem}`, path: [name] });
  }
  return out;
}
