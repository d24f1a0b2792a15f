import type { Config } from '../config/config.ts';
import type { Logger } from '../log.ts';
import { MemoryState } from './memory.ts';
import type { State } from './state.ts';

/**
 * `now` is the process clock (Services.clock): the in-process state expires its TTLs by it, so a test that moves
 * its clock moves them too. Redis keeps its own TTLs in real time and ignores it.
 */
export async function openState(config: Config, now: () => number = Date.now, log?: Logger): Promise<State> {
  if (!config.redis) return new MemoryState(now, config.memoryCacheMb * 1024 * 1024);
  const { RedisState } = await import('./redis.ts');
  const s = new RedisState(config.redis, config.redisPrefix, log);
  await s.ready();
  return s;
}
