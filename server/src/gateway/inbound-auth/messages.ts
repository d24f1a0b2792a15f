// User-facing messages of gateway authentication failures (bodies are `{ "error": <message> }`).
export const AuthMsg = {
  missing: 'Authentication required',
  invalidKey: 'Invalid API key',
  patOnProxy: 'Personal access tokens are not accepted on proxy URLs; use a client API key',
  invalidToken: 'Invalid token',
} as const;
