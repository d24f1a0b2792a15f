// Logs for terraform: stdout belongs to the handshake, so every line goes to stderr as hclog-style JSON, which
// terraform's plugin client re-emits at the line's own level (visible with TF_LOG=debug or TF_LOG_PROVIDER).
export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  log(level: Level, message: string, fields?: Record<string, unknown>): void;
}

export function stderrLogger(module = 'provider', write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  return {
    log(level, message, fields = {}) {
      const line = { '@level': level, '@message': message, '@module': module, '@timestamp': new Date().toISOString(), ...fields };
      write(`${JSON.stringify(line)}\n`);
    },
  };
}
