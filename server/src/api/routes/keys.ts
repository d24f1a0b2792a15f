// Client API keys (spec "Client API keys"): list (masked, PAT filtered out), create (plaintext once), replace
// permissions, delete. The logic lives in keys/; this module only maps HTTP to it.
import { created, type Router } from '../../http/router.ts';
import { createKey, deleteKey, updateKey } from '../../keys/commands.ts';
import { parseCreateKeyBody } from '../../keys/body.ts';
import { findOwnCredential, listClientKeys } from '../../keys/store.ts';
import { HttpError, Msg } from '../../http/errors.ts';
import { toKeyRecord } from '../../keys/view.ts';
import type { Services } from '../../services.ts';

export const KEY_CREATED_MESSAGE = 'Key created. Copy it now: it is shown only once.';

export function registerKeysRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/keys', 'user', async (ctx) => ({
    keys: (await listClientKeys(s.db, ctx.auth.consumerId)).map(toKeyRecord),
  }), { summary: 'List client API keys (masked; the PAT is not listed)' });

  r.add('GET', '/api/keys/:id', 'user', async (ctx) => {
    const row = await findOwnCredential(s.db, ctx.auth.consumerId, ctx.params.id!, false);
    // The PAT is a credential too, but never a client key: same 404 as an id that does not exist.
    if (!row || row.is_pat) throw new HttpError(404, Msg.keyNotFound);
    return toKeyRecord(row);
  }, { summary: 'One client API key (masked), as listed' });

  r.add('POST', '/api/keys', 'user', async (ctx) => {
    const body = parseCreateKeyBody(await ctx.json());
    const key = await createKey(s, ctx.auth, body);
    return created({ key, message: KEY_CREATED_MESSAGE });
  }, { summary: 'Create a client API key; the plaintext is returned once', status: 201 });

  r.add('PATCH', '/api/keys/:id', 'user', async (ctx) => {
    const key = await updateKey(s, ctx.auth, ctx.params.id!, await ctx.json());
    return { key, message: 'Permissions updated' };
  }, { summary: 'Replace every permission of a key (the name stays)' });

  r.add('DELETE', '/api/keys/:id', 'user', async (ctx) => {
    await deleteKey(s, ctx.auth, ctx.params.id!);
    return { message: 'Key deleted' };
  }, { summary: 'Delete a client API key' });
}
