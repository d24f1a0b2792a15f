// The inbound `auth` object shared by MCP servers and LLM proxies, as a nested attribute, with the contract's
// defaults filled at plan time so the plan shows what the server will store, and the contract's jwt-mode pins
// (audience, issuer) checked at validate time.
import { AUTH_MODES, JWT_PIN_REQUIRED, inboundAuthSchema, missingJwtPins } from '@tollgate/contract';
import { UNKNOWN, type Attribute, type Diagnostic, type ObjectValue, type Value } from '../framework/types.ts';
import { describeOf } from '../schema/describe.ts';
import { DEFAULTS } from './defaults.ts';
import { num, obj, str } from './values.ts';

const shape = inboundAuthSchema.shape;

export const inboundAuthAttribute: Attribute = {
  description: `${describeOf(inboundAuthSchema)} Null (omitted) means client API keys.`,
  optional: true,
  nested: {
    nesting: 'single',
    attributes: {
      mode: { type: 'string', optional: true, computed: true, description: `${describeOf(shape.mode)} One of ${AUTH_MODES.join(', ')}; default ${DEFAULTS.authMode}.` },
      issuer: { type: 'string', optional: true, description: describeOf(shape.issuer) },
      audience: { type: 'string', optional: true, description: describeOf(shape.audience) },
      jwks_json: { type: 'string', optional: true, description: `${describeOf(shape.jwksJson)} Use jsonencode().` },
      clock_skew_s: { type: 'number', optional: true, computed: true, description: `${describeOf(shape.clockSkewS)} Default ${DEFAULTS.clockSkewS}.` },
    },
  },
};

/** The configured object with the server's defaults filled (null stays null). */
export function planInboundAuth(v: Value | undefined): Value {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v ?? null;
  const a = v as ObjectValue;
  return { ...a, mode: a.mode ?? DEFAULTS.authMode, clock_skew_s: a.clock_skew_s ?? DEFAULTS.clockSkewS };
}

/** jwt mode without an audience or an issuer: the API's refusal, in its words, before anything is planned. */
export function validateInboundAuth(config: ObjectValue): Diagnostic[] {
  const a = obj(config, 'auth');
  if (!a) return [];
  // A value still unknown (another resource's output) is set by apply time; only an unset one is missing.
  const pin = (attr: string) => (a[attr] === UNKNOWN ? 'unknown' : str(a, attr));
  return missingJwtPins({ mode: str(a, 'mode') ?? undefined, audience: pin('audience'), issuer: pin('issuer') }).map((claim) => ({
    severity: 'error', summary: 'Invalid inbound auth', detail: `auth.${claim}: ${JWT_PIN_REQUIRED}`, path: ['auth', claim],
  }));
}

export function inboundAuthBody(state: ObjectValue): Record<string, unknown> | null {
  const a = obj(state, 'auth');
  if (!a) return null;
  const body: Record<string, unknown> = { mode: str(a, 'mode') ?? DEFAULTS.authMode, clockSkewS: num(a, 'clock_skew_s') ?? DEFAULTS.clockSkewS };
  for (const [attr, field] of [['issuer', 'issuer'], ['audience', 'audience'], ['jwks_json', 'jwksJson']] as const) {
    const s = str(a, attr);
    if (s !== null) body[field] = s;
  }
  return body;
}

interface InboundAuthRecord { mode: string; issuer?: string; audience?: string; jwksJson?: string; clockSkewS: number }

export function inboundAuthState(rec: InboundAuthRecord | null): Value {
  if (!rec) return null;
  return { mode: rec.mode, issuer: rec.issuer ?? null, audience: rec.audience ?? null, jwks_json: rec.jwksJson ?? null, clock_skew_s: rec.clockSkewS };
}
