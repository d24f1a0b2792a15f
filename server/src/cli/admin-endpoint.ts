import type { Services } from '../services.ts';

export async function startAdminEndpoint(_s: Services): Promise<() => Promise<void>> {
  return async () => undefined;
}
