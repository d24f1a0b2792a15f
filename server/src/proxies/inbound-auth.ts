// The inbound `auth` object shared by MCP and LLM proxies. A jwt-mode JWKS is validated structurally on every save
// (spec: 400 `auth.jwksJson: <reason>`); the gateway never fetches it at request time.
import { inboundAuthSchema } from '@tollgate/contract';
import { importJWK, type JWK } from 'jose';
import type { InboundAuth } from '../snapshot/snapshot.ts';
import { HttpError } from '../http/errors.ts';


export interface JwksKeySummary {
  kid: string | null;
  kty: string;
  alg: string | null;
  use: string | null;
}

const ASYMMETRIC = new Set(['RSA', 'EC', 'OKP']);

/** Structural JWKS validation; returns the keys or a reason. Private keys and symmetric keys are refused. */
export async function checkJwks(jwksJson: string | undefined): Promise<{ ok: true; keys: JwksKeySummary[] } | { ok: false; error: string }> {
  if (!jwksJson || !jwksJson.trim()) return { ok: false, error: 'is required when mode is jwt' };
  let doc: unknown;
  try {
    doc = JSON.parse(jwksJson);
  } catch {
    return { ok: false, error: 'is not valid JSON' };
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return { ok: false, error: 'must be an object with a "keys" array' };
  if (!keys.length) return { ok: false, error: 'contains no keys' };
  const out: JwksKeySummary[] = [];
  for (const [i, k] of keys.entries()) {
    const problem = keyProblem(i, k) ?? await importProblem(i, k as JWK);
    if (problem) return { ok: false, error: problem };
    out.push(summaryOf(k as JWK & { kty: string }));
  }
  return { ok: true, keys: out };
}

function summaryOf(jwk: JWK & { kty: string }): JwksKeySummary {
  return { kid: jwk.kid ?? null, kty: jwk.kty, alg: jwk.alg ?? null, use: jwk.use ?? null };
}

/** The structural reason key `i` is refused, checked in the order the messages are documented; undefined if none. */
function keyProblem(i: number, k: unknown): string | undefined {
  if (!k || typeof k !== 'object') return `keys[${i}] is not an object`;
  const jwk = k as JWK;
  if (typeof jwk.kty !== 'string' || !ASYMMETRIC.has(jwk.kty)) return `keys[${i}]: kty must be RSA, EC or OKP`;
  if ('d' in jwk) return `keys[${i}] is a private key; paste only public keys`;
  if (jwk.use !== undefined && jwk.use !== 'sig') return `keys[${i}]: use must be "sig"`;
  if (jwk.alg === 'none') return `keys[${i}]: alg "none" is not allowed`;
  // RFC 7517: kid, alg and use are strings; a number would be matched against the token header's string kid never.
  for (const f of ['kid', 'alg'] as const) {
    if (jwk[f] !== undefined && typeof jwk[f] !== 'string') return `keys[${i}]: ${f} must be a string`;
  }
  return undefined;
}

/** Whether jose can import the (structurally valid) key; the reason if not. */
async function importProblem(i: number, jwk: JWK): Promise<string | undefined> {
  try {
    await importJWK(jwk, jwk.alg ?? defaultAlg(jwk));
    return undefined;
  } catch (err) {
    return `keys[${i}] is not a usable key: ${(err as Error).message}`;
  }
}

function defaultAlg(jwk: JWK): string {
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  return jwk.crv === 'P-384' ? 'ES384' : jwk.crv === 'P-521' ? 'ES512' : 'ES256';
}

/** Parses and validates an `auth` input (null clears it). Throws the spec's 400s. */
export async function validateInboundAuth(input: unknown): Promise<InboundAuth | null> {
  if (input === null || input === undefined) return null;
  const r = inboundAuthSchema.safeParse(input);
  if (!r.success) {
    const iss = r.error.issues[0]!;
    throw new HttpError(400, `auth.${iss.path.join('.')}: ${iss.message}`.replace(/^auth\.: /, 'auth: '));
  }
  const auth = r.data;
  if (auth.mode === 'jwt') {
    const j = await checkJwks(auth.jwksJson);
    if (!j.ok) throw new HttpError(400, `auth.jwksJson: ${j.error}`);
  }
  return auth;
}
