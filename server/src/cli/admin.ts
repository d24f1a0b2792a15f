import type { Config } from '../config/config.ts';

export async function runAdmin(_args: string[], _config: Config): Promise<number> {
  process.stderr.write('tollgate admin: not implemented yet\n');
  return 2;
}
