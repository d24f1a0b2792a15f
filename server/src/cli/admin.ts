// `tollgate admin ...` (docs/admin-cli.md): out-of-band user and PAT management for operators.
//   user create --email E [--name N] [--password P | --password-stdin]   prints the new user's id
//   user tags --email E [--add TAG]... [--remove TAG]...                  prints the resulting tags, one per line
//   user password --email E (--password P | --password-stdin)             sets the dashboard password, prints nothing
//   token issue --email E                                                  prints only the plaintext PAT
// Exit codes: 0 done, 1 the command failed (unknown user, duplicate e-mail, database down), 2 bad usage.
// With DATABASE_URL the CLI connects to PostgreSQL itself. In embedded mode it sends the command to the server
// running on the data dir (admin-endpoint.ts) and opens the data dir itself only when no server runs there.
import type { Config } from '../config/config.ts';
import { DatastoreUnavailable } from '../db/db.ts';
import { AdminCommandError, runAdminCommand, type AdminCommand } from '../identity/admin-commands.ts';
import { isEmail, normalizeEmail } from '../identity/users.ts';
import { createLogger } from '../log.ts';
import { sendAdminCommand } from './admin-endpoint.ts';
import { acquireDataDirLock, DataDirBusy } from './data-dir-lock.ts';

export const ADMIN_USAGE = `usage:
  tollgate admin user create --email E [--name N] [--password P | --password-stdin]
  tollgate admin user tags --email E [--add TAG]... [--remove TAG]...
  tollgate admin user password --email E (--password P | --password-stdin)
  tollgate admin token issue --email E`;

export const MIN_PASSWORD_LENGTH = 8;

class UsageError extends Error {}

type Flags = Map<string, string[]>;

const FLAGS_BY_COMMAND: Record<string, { flags: string[]; booleans?: string[] }> = {
  'user create': { flags: ['--email', '--name', '--password'], booleans: ['--password-stdin'] },
  'user tags': { flags: ['--email', '--add', '--remove'] },
  'user password': { flags: ['--email', '--password'], booleans: ['--password-stdin'] },
  'token issue': { flags: ['--email'] },
};

function parseFlags(args: string[], allowed: string[], booleans: string[]): Flags {
  const out: Flags = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (booleans.includes(name) && eq < 0) {
      out.set(name, ['true']);
      continue;
    }
    if (!allowed.includes(name)) throw new UsageError(`unknown argument "${arg}"`);
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`${name} needs a value`);
    out.set(name, [...(out.get(name) ?? []), value]);
  }
  return out;
}

function single(flags: Flags, name: string, required: true): string;
function single(flags: Flags, name: string, required?: false): string | undefined;
function single(flags: Flags, name: string, required = false): string | undefined {
  const v = flags.get(name);
  if (!v) {
    if (required) throw new UsageError(`missing ${name}`);
    return undefined;
  }
  if (v.length > 1) throw new UsageError(`${name} given more than once`);
  if (v[0] === '') throw new UsageError(`${name} must not be empty`);
  return v[0];
}

function emailFlag(flags: Flags): string {
  const e = normalizeEmail(single(flags, '--email', true));
  if (!isEmail(e)) throw new UsageError(`--email: "${e}" is not an email address`);
  return e;
}

async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

/** --password P or --password-stdin (the first line of stdin, so it stays out of the shell history and ps). */
async function passwordFlag(flags: Flags): Promise<string | undefined> {
  let password = single(flags, '--password');
  if (flags.has('--password-stdin')) {
    if (password !== undefined) throw new UsageError('use either --password or --password-stdin');
    password = await readStdinLine();
  }
  if (password !== undefined && password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  return password;
}

async function userCreateCommand(flags: Flags): Promise<AdminCommand> {
  return { op: 'user.create', email: emailFlag(flags), name: single(flags, '--name'), password: await passwordFlag(flags) };
}

async function userPasswordCommand(flags: Flags): Promise<AdminCommand> {
  const password = await passwordFlag(flags);
  if (password === undefined) throw new UsageError('missing --password or --password-stdin');
  return { op: 'user.password', email: emailFlag(flags), password };
}

/** Turns argv (after `admin`) into a command, or throws UsageError. */
export async function parseAdminArgs(args: string[]): Promise<AdminCommand> {
  const key = args.slice(0, 2).join(' ');
  const spec = FLAGS_BY_COMMAND[key];
  if (!spec) throw new UsageError(args.length ? `unknown admin command "${key}"` : 'missing admin command');
  const flags = parseFlags(args.slice(2), spec.flags, spec.booleans ?? []);
  switch (key) {
    case 'user create': return userCreateCommand(flags);
    case 'user tags': return { op: 'user.tags', email: emailFlag(flags), add: flags.get('--add') ?? [], remove: flags.get('--remove') ?? [] };
    case 'user password': return userPasswordCommand(flags);
    default: return { op: 'token.issue', email: emailFlag(flags) };
  }
}

/** Runs the command on this process's own connection to the database (PostgreSQL, or an idle data dir). */
async function runDirect(cmd: AdminCommand, config: Config): Promise<string[]> {
  // Loaded only here: the endpoint path and usage errors do not need the whole application graph.
  const { buildServices } = await import('../app.ts');
  // Only errors on stderr: stdout carries the result (ids, tokens) that scripts capture.
  const s = await buildServices(config, { log: createLogger({ service: 'tollgate-admin' }, 'error') });
  try {
    return await runAdminCommand(s, cmd);
  } finally {
    await s.audit.close().catch(() => undefined);
    await s.state.close();
    await s.db.close();
  }
}

const SERVER_START_WAIT_MS = 30_000;

/**
 * Embedded mode: a running server gets the command over its admin endpoint. A server that holds the data-dir lock
 * but has not opened its endpoint yet is still starting: wait for it rather than open the data dir twice.
 */
async function executeEmbedded(cmd: AdminCommand, config: Config): Promise<string[]> {
  const deadline = Date.now() + SERVER_START_WAIT_MS;
  for (;;) {
    const viaServer = await sendAdminCommand(config.dataDir, cmd);
    if (viaServer.kind === 'done') return viaServer.output;
    try {
      const release = acquireDataDirLock(config.dataDir, 'admin');
      try {
        return await runDirect(cmd, config);
      } finally {
        release();
      }
    } catch (err) {
      if (!(err instanceof DataDirBusy)) throw err;
      if (err.holder.role !== 'serve' || Date.now() > deadline) throw new AdminCommandError(err.message);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function execute(cmd: AdminCommand, config: Config): Promise<string[]> {
  return config.databaseUrl ? runDirect(cmd, config) : executeEmbedded(cmd, config);
}

export async function runAdmin(args: string[], config: Config): Promise<number> {
  let cmd: AdminCommand;
  try {
    cmd = await parseAdminArgs(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`tollgate admin: ${err.message}\n${ADMIN_USAGE}\n`);
    return 2;
  }
  try {
    const lines = await execute(cmd, config);
    process.stdout.write(lines.map((l) => l + '\n').join(''));
    return 0;
  } catch (err) {
    if (err instanceof AdminCommandError) process.stderr.write(`tollgate admin: ${err.message}\n`);
    else if (err instanceof DatastoreUnavailable) process.stderr.write(`tollgate admin: the ${err.store} is not reachable\n`);
    else throw err;
    return 1;
  }
}
