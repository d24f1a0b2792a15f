// Work that the gateway records in batches (audit events, stream records, sealed conversation logs) or builds in bulk
// (a snapshot of many tenants) is split across turns of the event loop, so that it never holds requests back for
// long (docs/performance.md, "The tail: nothing recorded runs on the event loop").
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Counts the work done since the last turn of the event loop, and takes a turn once `budget` of it is done. */
export class TurnBudget {
  private spent = 0;

  constructor(private readonly budget: number) {}

  /**
   * Adds `weight` to the work done; a promise of the next turn when the budget was already spent, else undefined, so a
   * tight loop awaits only at its turns (`const turn = budget.spend(); if (turn) await turn;`).
   */
  spend(weight = 1): Promise<void> | undefined {
    if (this.spent < this.budget) {
      this.spent += weight;
      return undefined;
    }
    this.spent = weight;
    return nextTurn();
  }
}

/**
 * `items.map(fn)`, with a turn of the event loop each time the items mapped since the last turn weigh `budget` or
 * more (`weight` gives an item's share of the work, 1 by default). An `fn` that returns a promise is waited for
 * before the next item (it may take turns of its own).
 */
export async function mapInTurns<T, R>(items: readonly T[], fn: (item: T) => R | Promise<R>, budget: number, weight: (item: T) => number = () => 1): Promise<R[]> {
  const out: R[] = [];
  const turns = new TurnBudget(budget);
  for (const item of items) {
    const turn = turns.spend(weight(item));
    if (turn) await turn;
    out.push(await fn(item));
  }
  return out;
}
