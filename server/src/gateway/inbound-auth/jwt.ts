// Mode jwt: the Bearer token is a JWT verified with jose against the proxy's stored JWKS, issuer, audience and
// clockSkewS. Nothing is fetched at request time. Only asymmetric algorithms are accepted (so `alg: none` and HMAC
// tricks with a public key fail), and a token whose key is not in the JWKS fails. Verified tokens are remembered
// until they expire (bounded), so a client reusing its token pays the signature check once per config version.
// A record without an audience or an issuer (saved before the API required them) refuses every token rather than
// accept whatever the JWKS's owner signed for any application.
import { missingJwtPins } from '@tollgate/contract';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { InboundAuth } from '../../snapshot/snapshot.ts';
import type { AuthOutcome, Identity } from './types.ts';
import { AuthMsg, jwtPinsMissing } from './messages.ts';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const CACHE_MAX = 10_000;
const MAX_TOKEN_CHARS = 16 * 1024;

type Refusal = Extract<AuthOutcome, { ok: false }>;

/** What a proxy's auth gives, once per config version: the key set, or why no token can pass. */
function setUp(auth: InboundAuth): { ok: true; keys: JWTVerifyGetKey } | Refusal {
  const missing = missingJwtPins(auth);
  if (missing.length) return { ok: false, status: 401, message: jwtPinsMissing(missing), reason: 'jwt_pins_missing', detail: missing.join(',') };
  try {
    const doc = JSON.parse(auth.jwksJson ?? '') as { keys?: unknown };
    if (!Array.isArray(doc.keys)) throw new Error('no keys array');
    return { ok: true, keys: createLocalJWKSet({ keys: doc.keys }) };
  } catch (err) {
    // The API validates the JWKS on save; a broken one here means every token fails (closed), never a crash.
    return fail('jwks_unusable', (err as Error).message);
  }
}

export class JwtVerifier {
  private readonly setup: ReturnType<typeof setUp>;
  private readonly verified = new Map<string, { identity: Identity; untilMs: number }>();

  constructor(private readonly auth: InboundAuth, private readonly nowMs: () => number) {
    this.setup = setUp(auth);
  }

  async verify(token: string | undefined, tokenHash: string | undefined): Promise<AuthOutcome> {
    if (!token || !tokenHash) return { ok: false, status: 401, message: AuthMsg.missing, reason: 'missing_credential' };
    if (!this.setup.ok) return this.setup;
    if (token.length > MAX_TOKEN_CHARS) return fail('token_too_long');
    const now = this.nowMs();
    const hit = this.verified.get(tokenHash);
    if (hit) {
      if (hit.untilMs > now) return { ok: true, identity: hit.identity };
      this.verified.delete(tokenHash);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.setup.keys, {
        issuer: this.auth.issuer,
        audience: this.auth.audience,
        clockTolerance: this.auth.clockSkewS,
        algorithms: ALGORITHMS,
        currentDate: new Date(now),
      }));
    } catch (err) {
      return fail(reasonOf(err));
    }
    const identity: Identity = {
      mode: 'jwt',
      tags: [],
      claims: payload,
      consumerKey: `${payload.iss ?? ''}|${payload.sub ?? ''}`,
      apiKeyKey: tokenHash,
    };
    const untilMs = typeof payload.exp === 'number' ? (payload.exp + this.auth.clockSkewS) * 1000 : now + 60_000;
    if (this.verified.size >= CACHE_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(tokenHash, { identity, untilMs });
    return { ok: true, identity };
  }

  /** Pre-auth principal for ban checks (unverified: a ban can only deny). */
  peek(token: string | undefined, tokenHash: string | undefined) {
    if (!token) return {};
    try {
      const p = decodeJwt(token);
      return { consumerKey: `${p.iss ?? ''}|${p.sub ?? ''}`, apiKeyKey: tokenHash };
    } catch {
      return { apiKeyKey: tokenHash };
    }
  }
}

function fail(reason: string, detail?: string): Refusal {
  return { ok: false, status: 401, message: AuthMsg.invalidToken, reason, detail };
}

/** A stable reason for the deny event, from jose's error codes (no token content). */
function reasonOf(err: unknown): string {
  const e = err as { code?: string; claim?: string };
  switch (e.code) {
    case 'ERR_JWT_EXPIRED': return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': return `claim_${e.claim ?? 'invalid'}`;
    case 'ERR_JWKS_NO_MATCHING_KEY': return 'unknown_key';
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS': return 'ambiguous_key';
    case 'ERR_JOSE_ALG_NOT_ALLOWED': return 'alg_not_allowed';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED': return 'bad_signature';
    case 'ERR_JOSE_NOT_SUPPORTED': return 'alg_not_supported';
    default: return 'malformed';
  }
}
