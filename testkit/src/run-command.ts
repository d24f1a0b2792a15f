// Runs a one-shot command (the admin CLI, mostly) without blocking the event loop. A synchronous spawn between two
// requests leaves fetch's keep-alive socket unread while the server closes it, and the next request fails on that
// socket (UND_ERR_SOCKET): the flake test/helm/gitops.test.ts once had.
import { execFile, type ExecFileOptions } from 'node:child_process';
import { promisify } from 'node:util';

export interface CommandResult { status: number; stdout: string; stderr: string }

/** The exit status and output of `file args`; a failure to start at all is status 1 with the error as stderr. */
export async function runCommand(file: string, args: string[], options: ExecFileOptions): Promise<CommandResult> {
  try {
    const r = await promisify(execFile)(file, args, { ...options, encoding: 'utf8' });
    return { status: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
  }
}
