// The gateway's own answers on MCP proxies (status and body in docs/gateway.md, "Gateway errors").
export const McpMsg = {
  originRejected: 'Origin not allowed',
  noAccess: 'This credential has no access to this MCP server',
  methodNotAllowed: 'Method not allowed',
  unreachable: 'Upstream MCP server unreachable',
  timeout: 'Upstream MCP server timed out',
  /** The upstream's JSON answer stopped in the middle (connection reset or closed). */
  broken: 'Upstream MCP server broke off its answer',
  /** A 200 answer labelled JSON that is not JSON (truncated, an HTML error page...). */
  invalidJson: 'Upstream MCP server sent an invalid JSON answer',
  notPinned: 'Upstream MCP server address is not resolved; re-resolve the MCP server',
  toolNotPermitted: (t: string) => `Tool "${t}" is not permitted for this credential`,
  resourceNotPermitted: (u: string) => `Resource "${u}" is not permitted for this credential`,
  batchRejected: 'Batch rejected: another message in it was refused',
  /** upstream.ts forwardablePath says which paths. */
  pathRejected: 'Path not allowed: dot segments, empty segments, backslashes and encoded dots, slashes, backslashes or percent signs are not forwarded',
} as const;
