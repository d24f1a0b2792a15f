// The vocabulary of inbound authentication, below both the authenticators (index.ts, jwt.ts, svc-key.ts) and their
// users (the pipeline, the kind handlers), so none of them imports the other for a type.

/** Who the caller is once authentication passed. */
export interface Identity {
  mode: 'svc_api_key' | 'jwt';
  /** svc_api_key: the client key's credential id. */
  credentialId?: string;
  /** svc_api_key: the consumer (user) owning the key. */
  consumerId?: string;
  /** svc_api_key: the key's permission tags; empty in jwt mode. */
  tags: readonly string[];
  /** jwt: the verified claims. */
  claims?: Readonly<Record<string, unknown>>;
  /** Value of the rate_limit match key `consumer`: the consumer id, or `iss|sub` of a JWT. */
  consumerKey: string;
  /** Value of the rate_limit match key `api_key`: the credential id, or the SHA-256 of a JWT. */
  apiKeyKey: string;
}

export type AuthOutcome =
  | { ok: true; identity: Identity }
  /** `reason` goes to the deny event (e.g. expired, claim_aud, unknown_key, pat_on_proxy); `message` to the client. */
  | { ok: false; status: 401; message: string; reason: string; detail?: string };

export interface Authenticator {
  authenticate(token: string | undefined, tokenHash: string | undefined): Promise<AuthOutcome>;
  /** Who the token claims to be, without verifying it: used only to look up bans before authentication. */
  peek(token: string | undefined, tokenHash: string | undefined): { consumerKey?: string; apiKeyKey?: string };
}
