// The upstream fields of an MCP proxy (name, URL, upstream auth and its write-only token), shared by the create and
// edit forms. The token is never shown back: on edit an empty field keeps the stored one.
import { useState } from 'preact/hooks';
import { Field, newId } from '../../components/form.tsx';

export interface UpstreamValues {
  name: string;
  url: string;
  authType: 'none' | 'bearer';
  authToken: string;
}

export function readUpstream(form: HTMLFormElement): UpstreamValues {
  const f = new FormData(form);
  return {
    name: String(f.get('name') ?? ''),
    url: String(f.get('url') ?? ''),
    authType: f.get('authType') === 'bearer' ? 'bearer' : 'none',
    authToken: String(f.get('authToken') ?? ''),
  };
}

export function UpstreamFields(p: { initial?: { name: string; url: string; authType: 'none' | 'bearer' } }) {
  const [ids] = useState(() => ({ name: newId('mcp-name'), url: newId('mcp-url'), auth: newId('mcp-auth'), token: newId('mcp-token') }));
  const [authType, setAuthType] = useState(p.initial?.authType ?? 'none');
  const editing = !!p.initial;
  return (
    <>
      <Field label="Name" id={ids.name}><input id={ids.name} name="name" defaultValue={p.initial?.name} required /></Field>
      <Field label="Upstream URL" id={ids.url} hint="The MCP endpoint (Streamable HTTP), https on a public address.">
        <input id={ids.url} name="url" type="url" defaultValue={p.initial?.url} required size={50} aria-describedby={`${ids.url}-hint`} />
      </Field>
      <Field label="Upstream auth" id={ids.auth}>
        <select id={ids.auth} name="authType" value={authType} onChange={(e) => setAuthType((e.currentTarget.value as 'none' | 'bearer'))}>
          <option value="none">none</option>
          <option value="bearer">bearer token</option>
        </select>
      </Field>
      {authType === 'bearer' && (
        <Field
          label={editing ? 'Replace bearer token' : 'Bearer token'} id={ids.token}
          hint={editing ? 'Write-only: leave empty to keep the stored token.' : 'Write-only: stored encrypted and never shown again.'}
        >
          <input id={ids.token} name="authToken" type="password" autocomplete="off" aria-describedby={`${ids.token}-hint`} />
        </Field>
      )}
    </>
  );
}
