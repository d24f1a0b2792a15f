// A logger that keeps every error-level line (an internal failure is logged in full), for fuzzers that require none.
import type { Logger } from '../../server/src/log.ts';

export function recordingLogger(errors: string[]): Logger {
  const log: Logger = {
    debug() {}, info() {}, warn() {},
    error(msg, fields) { errors.push(`${msg} ${JSON.stringify(fields, (_, v) => (v instanceof Error ? v.stack : v)).slice(0, 2000)}`); },
    child: () => log,
  };
  return log;
}
