// The inbound `auth` object shared by MCP servers and LLM proxies (its attribute is derived from the contract with the
// rest of each resource): the contract's defaults filled at plan time so the plan shows what the server will store,
// and the contract's jwt-mode pins (audience, issuer) checked at validate time.
import { JWT_PIN_REQUIRED, missingJwtPins } from '@tollgate/contract';
import { UNKNOWN, type Diagnostic, type ObjectValue, type Value } from '../framework/types.ts';
import { DEFAULTS } from './defaults.ts';
import { obj, str } from './values.ts';

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
