// node:fs with `globSync` for Node 20, as far as the conformance suite uses it: `**/<name>` under a cwd.
import fs from 'node:fs';
import { basename } from 'node:path';

export * from 'node:fs';
export default fs;

export function globSync(pattern, opts = {}) {
  const m = /^\*\*\/([^*?[\]/]+)$/.exec(pattern);
  if (!m) throw new Error(`conformance-fs: globSync supports only "**/<name>", not ${pattern}`);
  return fs.readdirSync(opts.cwd ?? process.cwd(), { recursive: true }).map(String).filter((f) => basename(f) === m[1]);
}
