// Client keys (`#/keys`): the masked list with each key's permissions, create (the plaintext shown once, in this
// page's state only), edit permissions (PATCH replaces them all) and delete.
import { useState } from 'preact/hooks';
import { parseKeyTags, type ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { Button, ErrorLine, Field, newId } from '../../components/form.tsx';
import { SecretOnce } from '../../components/secret-once.tsx';
import { useApi } from '../../components/use-api.ts';
import { grantsOfTags, NO_GRANTS, permissionsOf, type Grants } from './grants.ts';
import { PermissionsPicker } from './permissions-picker.tsx';

type Key = ResponseOf<'GET /api/keys'>['keys'][number];
type Mcp = ResponseOf<'GET /api/mcp'>['servers'][number];
type Llm = ResponseOf<'GET /api/llm'>['proxies'][number];

interface Owned { mcps: Mcp[]; llms: Llm[] }

export function KeysPage() {
  const keys = useApi(() => api.call('GET /api/keys'), []);
  const mcps = useApi(() => api.call('GET /api/mcp'), []);
  const llms = useApi(() => api.call('GET /api/llm'), []);
  const [created, setCreated] = useState<{ key: string; message: string }>();
  const [editing, setEditing] = useState<string>();
  const owned: Owned = { mcps: mcps.data?.servers ?? [], llms: llms.data?.proxies ?? [] };
  const error = [keys, mcps, llms].map((l) => l.error).find(Boolean);
  const editKey = keys.data?.keys.find((k) => k.id === editing);
  return (
    <main>
      <h1>Client keys</h1>
      <p class="hint">The credentials clients send to your proxies (<code>Authorization: Bearer tgk_…</code>). They never work on the management API.</p>
      <ErrorLine message={error} />
      {created && <SecretOnce value={created.key} label="Your new client key" note={created.message} />}
      {keys.data && <KeyTable keys={keys.data.keys} owned={owned} onEdit={setEditing} onDeleted={keys.reload} />}
      {editKey && (
        <EditKey key={editKey.id} apiKey={editKey} owned={owned} onDone={async (changed) => { setEditing(undefined); if (changed) await keys.reload(); }} />
      )}
      {mcps.data && llms.data && <CreateKey owned={owned} onCreated={async (c) => { setCreated(c); await keys.reload(); }} />}
    </main>
  );
}

function describe(tags: readonly string[], owned: Owned): string[] {
  const p = parseKeyTags(tags);
  const name = (list: { id: string; name: string }[], id: string) => list.find((x) => x.id === id)?.name ?? id;
  return [
    ...p.mcpPermissions.map((m) => `${name(owned.mcps, m.id)}: tools ${m.tools.join(', ') || 'none'}${m.resources.length ? `; resources ${m.resources.join(', ')}` : ''}`),
    ...p.llmPermissions.map((l) => `${name(owned.llms, l.id)}: models ${l.models.join(', ')}`),
    ...(p.customTags.length ? [`tags: ${p.customTags.join(', ')}`] : []),
  ];
}

function KeyTable(p: { keys: Key[]; owned: Owned; onEdit: (id: string) => void; onDeleted: () => Promise<void> }) {
  async function remove(id: string) {
    const r = await api.call('DELETE /api/keys/:id', { params: { id } });
    if (r.ok) await p.onDeleted();
    return failure(r);
  }
  if (p.keys.length === 0) return <p class="muted">No client keys yet.</p>;
  return (
    <div class="table-wrap">
      <table aria-label="Your client keys">
        <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Permissions</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {p.keys.map((k) => {
            const name = parseKeyTags(k.tags).name ?? '(no name)';
            const perms = describe(k.tags, p.owned);
            return (
              <tr key={k.id}>
                <td>{name}</td>
                <td><code>{k.key}</code></td>
                <td>{perms.length ? <ul class="plain">{perms.map((s) => <li key={s}>{s}</li>)}</ul> : <span class="muted">none</span>}</td>
                <td class="nowrap">{new Date(k.created_at * 1000).toISOString().slice(0, 10)}</td>
                <td class="actions">
                  <Button class="secondary" aria-label={`Edit permissions of ${name}`} onClick={() => p.onEdit(k.id)}>Edit permissions</Button>
                  <ConfirmDelete what={`the key ${name} (${k.key})`} onConfirm={() => remove(k.id)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function CreateKey(p: { owned: Owned; onCreated: (c: { key: string; message: string }) => Promise<void> }) {
  const [nameId] = useState(() => newId('key-name'));
  const [name, setName] = useState('');
  const [grants, setGrants] = useState<Grants>(NO_GRANTS);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    const r = await api.call('POST /api/keys', { body: { name, ...permissionsOf(grants) } });
    setBusy(false);
    setError(failure(r));
    if (!r.ok) return;
    setName('');
    setGrants(NO_GRANTS);
    await p.onCreated({ key: r.body.key.key, message: r.body.message });
  }
  return (
    <section class="panel" aria-labelledby="key-create">
      <h2 id="key-create">Create a client key</h2>
      <form onSubmit={submit} noValidate>
        <Field label="Key name" id={nameId} hint="Letters, numbers, - and _; fixed once created.">
          <input id={nameId} value={name} required aria-describedby={`${nameId}-hint`} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <PermissionsPicker mcps={p.owned.mcps} llms={p.owned.llms} value={grants} onChange={setGrants} />
        <ErrorLine message={error} />
        <button type="submit" disabled={busy}>Create key</button>
      </form>
    </section>
  );
}

function EditKey(p: { apiKey: Key; owned: Owned; onDone: (changed: boolean) => Promise<void> }) {
  const allowed = (id: string) => p.owned.llms.find((l) => l.id === id)?.allowedModels ?? [];
  const [grants, setGrants] = useState<Grants>(() => grantsOfTags(p.apiKey.tags, allowed));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const name = parseKeyTags(p.apiKey.tags).name ?? p.apiKey.key;
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    const r = await api.call('PATCH /api/keys/:id', { params: { id: p.apiKey.id }, body: permissionsOf(grants) });
    setBusy(false);
    setError(failure(r));
    if (r.ok) await p.onDone(true);
  }
  return (
    <section class="panel" aria-labelledby="key-edit">
      <h2 id="key-edit">Permissions of {name}</h2>
      <p class="hint">Saving replaces every permission of the key with the ones ticked here.</p>
      <form onSubmit={submit} noValidate>
        <PermissionsPicker mcps={p.owned.mcps} llms={p.owned.llms} value={grants} onChange={setGrants} />
        <ErrorLine message={error} />
        <div class="row">
          <button type="submit" disabled={busy}>Save permissions</button>
          <button type="button" class="secondary" onClick={() => p.onDone(false)}>Cancel</button>
        </div>
      </form>
    </section>
  );
}
