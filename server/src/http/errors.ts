// One error type for every deliberate HTTP failure: a status and the exact user-facing message from the spec.
// Anything else that reaches the error middleware is a bug and becomes a 500 without detail (logged in full).

export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
  }
}

/** The spec's fixed messages, in one place. */
export const Msg = {
  notAuthenticated: 'Not authenticated',
  invalidPat: 'Invalid personal access token',
  mfaRequired: 'MFA required',
  sessionOnly: 'This endpoint does not accept personal access tokens. Use the dashboard session.',
  invalidJson: 'Invalid JSON body',
  endpointNotFound: 'Endpoint not found',
  mcpNotFound: 'MCP server not found',
  llmNotFound: 'LLM proxy not found',
  keyNotFound: 'Key not found',
  resourceNotFound: 'Resource not found',
  mcpRequired: 'name e url sono obbligatori',
  nameRequired: 'name is required',
  invalidName: 'Invalid name — use letters, numbers, - and _ only',
  uriInUse: 'URI already in use on this MCP server',
  badBefore: 'before must be a YYYYMMDD integer',
  forbidden: 'Forbidden',
  cannotModifyPat: 'Cannot modify personal token',
  missingNameTag: 'Key is missing a name tag — recreate it to change permissions',
  twoFaEnabled: '2FA is already enabled',
  twoFaNotEnabled: '2FA is not enabled',
  createKeyFailed: 'Failed to create the key',
  updatePermissionsFailed: 'Failed to update permissions',
  datastoreUnavailable: 'Service unavailable: the datastore is not reachable',
  internal: 'Internal server error',
} as const;

export const badRequest = (m: string) => new HttpError(400, m);
export const notFound = (m: string) => new HttpError(404, m);
export const forbidden = (m: string) => new HttpError(403, m);
