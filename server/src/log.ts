// The server logs through the shared logger of the contract package (one line format for every Tollgate process).
export { createLogger, silentLogger, type Level, type Logger } from '@tollgate/contract';
