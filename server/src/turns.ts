// Work that the gateway records in batches (audit events, stream records, sealed conversation logs) is split across
// turns of the event loop, so that a large batch never holds requests back for long (docs/performance.md, "The tail:
// nothing recorded runs on the event loop").
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * `items.map(fn)`, with a turn of the event loop each time the items mapped since the last turn weigh `budget` or
 * more (`weight` gives an item's share of the work, 1 by default). An `fn` that returns a promise is waited for
 * before the next item (it may take turns of its own).
 */
export async function mapInTurns<T, R>(items: readonly T[], fn: (item: T) => R | Promise<R>, budget: number, weight: (item: T) => number = () => 1): Promise<R[]> {
  const out: R[] = [];
  let spent = 0;
  for (const item of items) {
    if (spent >= budget) {
      await nextTurn();
      spent = 0;
    }
    out.push(await fn(item));
    spent += weight(item);
  }
  return out;
}
