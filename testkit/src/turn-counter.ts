// Counts turns of the event loop: a setImmediate callback that schedules itself again, up to `limit` times (so the
// counting stops on its own). Tests of work split across turns read `count` during and after that work.
export function turnCounter(limit = 100): { readonly count: number } {
  let count = 0;
  const tick = () => {
    count++;
    if (count < limit) setImmediate(tick);
  };
  setImmediate(tick);
  return { get count() { return count; } };
}
