// Who is signed in: GET /api/auth/session. 401 means nobody; a session that still owes its second factor is told
// apart by the sign-in answer (mfaRequired) and by the API answering the session route only after the challenge.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { api } from './api.ts';

export type SessionInfo = ResponseOf<'GET /api/auth/session'>;

export interface SessionState {
  session: SessionInfo | undefined;
  /** Reads the session again (after sign-in, 2FA changes, sign-out). */
  refresh(): Promise<void>;
}

export const SessionContext = createContext<SessionState>({ session: undefined, refresh: async () => undefined });

export const useSession = () => useContext(SessionContext);

export async function loadSession(): Promise<SessionInfo | undefined> {
  const r = await api.call('GET /api/auth/session');
  return r.ok ? r.body : undefined;
}
