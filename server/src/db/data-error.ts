/**
 * True for a PostgreSQL error about the data itself (SQLSTATE class 22, data exception, or 23, integrity
 * violation): retrying the same rows can never succeed, unlike a lost connection.
 */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
