// Data source tollgate_profile: who the provider's token belongs to (GET /api/profile).
import type { ApiClient } from '@tollgate/contract';
import type { DataSourceType } from '../framework/types.ts';
import { apiErrorDiagnostic } from '../client/diagnostics.ts';

export const profileDataSource: DataSourceType<ApiClient> = {
  schema: {
    version: 0,
    description: 'The user the provider\'s token belongs to.',
    attributes: {
      id: { type: 'string', computed: true, description: 'The user\'s consumer id.' },
      email: { type: 'string', computed: true, description: 'Email address.' },
      name: { type: 'string', computed: true, description: 'Display name, if set.' },
      tags: { type: ['list', 'string'], computed: true, description: 'Consumer tags, including the per-user quota tags.' },
    },
  },
  async read(client) {
    const r = await client.call('GET /api/profile');
    if (!r.ok) return { diagnostics: [apiErrorDiagnostic(r.error, { action: 'Reading the profile' })] };
    return { value: { id: r.body.consumerId, email: r.body.email, name: r.body.name, tags: r.body.tags }, diagnostics: [] };
  },
};
