/** Who is calling the management API, and through which channel: resolved by identity/authenticate.ts, carried by
 * the request context (router.ts). */
export interface AuthContext {
  userId: string;
  email: string;
  consumerId: string;
  consumerTags: string[];
  channel: 'pat' | 'session';
  /** The PAT credential id (channel `pat`). */
  credentialId?: string;
  /** The session id hash (channel `session`). */
  sessionIdHash?: string;
  mfaPassed: boolean;
}
