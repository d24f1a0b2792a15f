// The engine's public types (re-exported by engine.ts). Plain data only: the gateway builds LambdaInput per request.

export type LambdaPhase = 'access' | 'response';
export type LambdaLogLevel = 'info' | 'warn' | 'err';

/** Read-only facts about the request, exposed as svc.context.<field> (absent fields read as nil). */
export interface LambdaContext {
  tool_name?: string;
  method?: string;
  proxy_id: string;
  credential_id?: string;
  client_ip: string;
  model?: string;
}

export interface LambdaInput {
  phase: LambdaPhase;
  context: LambdaContext;
  /** Inbound request; header names are matched case-insensitively, multi-valued headers are joined with ", ". */
  request: { headers: Record<string, string | string[] | undefined>; body: string };
  /** The upstream's answer (response phase only). */
  response?: { status: number; body: string };
  /** Receives svc.log.* lines (already capped in size and count). Must not throw. */
  log: (level: LambdaLogLevel, message: string) => void;
}

export type LambdaOutcome =
  /** Go on; responseBody is set when the lambda called svc.response.set_body (response phase). */
  | { kind: 'continue'; responseBody?: string }
  /** Answer the client now with this status, body and headers (lower-case names). */
  | { kind: 'exit'; status: number; body: string; headers: Record<string, string> }
  /** The lambda failed (runtime error, budget exceeded, misuse of svc); message is safe to log. Fail closed. */
  | { kind: 'error'; message: string };
