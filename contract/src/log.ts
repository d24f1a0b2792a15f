// Structured JSON log lines on stderr, the one format of every Tollgate process (server, operator). Never pass secrets
// here: callers log ids, not credentials.
export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

function errorFields(v: unknown): unknown {
  return v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v;
}

/** The Node.js process, reached through globalThis: the contract compiles without Node's types (it has no platform). */
const host = (globalThis as { process?: { env: Record<string, string | undefined>; stderr: { write(s: string): unknown } } }).process;
const toStderr = (line: string) => { host?.stderr.write(line + '\n'); };

export function createLogger(base: Record<string, unknown> = {}, min: Level = (host?.env.TOLLGATE_LOG_LEVEL as Level) || 'info', out: (line: string) => void = toStderr): Logger {
  const threshold = ORDER[min] ?? ORDER.info;
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < threshold) return;
    const rec: Record<string, unknown> = { time: new Date().toISOString(), level, msg, ...base };
    for (const [k, v] of Object.entries(fields ?? {})) rec[k] = errorFields(v);
    out(JSON.stringify(rec));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...base, ...fields }, min, out),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };
