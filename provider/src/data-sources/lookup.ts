// Data sources that find one proxy by id or by name (names are not unique: more than one match is an error).
import type { ApiClient, ApiResult } from '@tollgate/contract';
import type { DataSourceType, ObjectValue, Result } from '../framework/types.ts';
import { apiErrorDiagnostic, errorDiagnostic } from '../client/diagnostics.ts';
import { str } from '../resources/values.ts';

interface Named { id: string; name: string }

export interface LookupOptions<R extends Named> {
  what: string;
  one: (client: ApiClient, id: string) => Promise<ApiResult<R>>;
  list: (client: ApiClient) => Promise<ApiResult<R[]>>;
  toState: (rec: R) => ObjectValue;
}

export function byIdOrName<R extends Named>(o: LookupOptions<R>): (client: ApiClient, config: ObjectValue) => Promise<Result<ObjectValue>> {
  return async (client, config) => {
    const id = str(config, 'id');
    const name = str(config, 'name');
    const ctx = { action: `Reading the ${o.what}` };
    if (id !== null) {
      const r = await o.one(client, id);
      if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, ctx)] };
      return { value: o.toState(r.body), diagnostics: [] };
    }
    const r = await o.list(client);
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, ctx)] };
    const found = r.body.filter((x) => x.name === name);
    if (found.length !== 1) {
      return { diagnostics: [errorDiagnostic(`No single ${o.what} named "${name}"`, `${found.length} ${o.what}s have that name; use id instead`, ['name'])] };
    }
    return { value: o.toState(found[0]!), diagnostics: [] };
  };
}

/** A list answer as the list itself (`{ servers: [...] }` → `[...]`). */
export async function listed<T, K extends string>(call: Promise<ApiResult<Record<K, T[]>>>, key: K): Promise<ApiResult<T[]>> {
  const r = await call;
  return r.ok ? { ...r, body: r.body[key] } : r;
}

export function validateIdOrName(config: ObjectValue) {
  const both = config.id !== null && config.name !== null;
  const none = config.id === null && config.name === null;
  return both || none ? [errorDiagnostic('Set exactly one of id and name', undefined, ['id'])] : [];
}

export type LookupDataSource = DataSourceType<ApiClient>;
