import type { Config } from '../config/config.ts';
import { MemoryState } from './memory.ts';
import type { State } from './state.ts';

export async function openState(config: Config): Promise<State> {
  if (!config.redisUrl) return new MemoryState(Date.now, config.memoryCacheMb * 1024 * 1024);
  const { RedisState } = await import('./redis.ts');
  const s = new RedisState(config.redisUrl, config.redisPrefix);
  await s.ready();
  return s;
}
