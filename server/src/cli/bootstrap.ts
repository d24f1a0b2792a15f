// First start on an empty embedded database: create admin@localhost and print its PAT and a generated dashboard
// password once, so that a fresh clone can be used from curl and from the browser alike. Only hashes are stored.
import { randomBytes } from 'node:crypto';
import { createUser, issuePat } from '../identity/users.ts';
import { unixNow, type Services } from '../services.ts';

export const BOOTSTRAP_EMAIL = 'admin@localhost';

export async function bootstrapAdmin(s: Services, apiUrl = 'http://127.0.0.1:8080'): Promise<void> {
  const [{ n }] = (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users')) as [{ n: number }];
  if (n > 0) return;
  const now = unixNow(s.clock);
  // 128 bits, in characters a terminal copies in one double-click.
  const password = randomBytes(16).toString('base64url');
  const token = await s.db.tx(async (q) => {
    const { consumerId } = await createUser(q, { email: BOOTSTRAP_EMAIL, name: 'Administrator', password }, now);
    return (await issuePat(q, consumerId, now)).token;
  });
  process.stdout.write([
    '',
    '  Tollgate is ready. A first user was created: admin@localhost',
    '  Its personal access token (shown once; keep it):',
    '',
    `    ${token}`,
    '',
    // eslint-disable-next-line no-restricted-syntax -- a command for the user to copy, not a call
    `  Try: curl -H "Authorization: Bearer <token>" ${apiUrl}/api/profile`,
    '',
    `  The dashboard: ${apiUrl}/  (sign in as admin@localhost with the password below, shown once;`,
    '  change it with: tollgate admin user password --email admin@localhost --password-stdin)',
    '',
    `    ${password}`,
    '',
  ].join('\n') + '\n');
}
