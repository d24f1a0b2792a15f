// How long a piece of code ran, as CPU time of this process: what the code under test costs, whatever else the
// machine runs. Tests that bound a computation (a lambda stopped by its budget, a regex walk that must stay linear)
// measure this, not wall-clock time, so a busy CI host cannot fail them (issue 10: the suite passes while another
// CPU-heavy job runs). Each test file runs in its own process, so no other test's work is counted.
export function cpuMs<T>(fn: () => T): { value: T; ms: number } {
  const t0 = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(t0);
  return { value, ms: (used.user + used.system) / 1000 };
}

/** cpuMs for async code: only meaningful when nothing else runs in this process meanwhile (a unit test's await). */
export async function cpuMsAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(t0);
  return { value, ms: (used.user + used.system) / 1000 };
}
