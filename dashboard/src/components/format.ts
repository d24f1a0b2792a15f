// How the activity pages write times, counts and money. Times are UTC, as the API buckets and stores them.
const iso = (s: number) => new Date(s * 1000).toISOString();

/** `2025-01-31 14:05 UTC` */
export const utcMinute = (s: number) => `${iso(s).slice(0, 16).replace('T', ' ')} UTC`;
/** `2025-01-31 14:00` */
export const utcHour = (s: number) => `${iso(s).slice(0, 13).replace('T', ' ')}:00`;
/** `2025-01-31` */
export const utcDay = (s: number) => iso(s).slice(0, 10);
/** `2025-01` */
export const utcMonth = (s: number) => iso(s).slice(0, 7);

export const count = (n: number) => n.toLocaleString('en-US');

/** `1 request`, `3 requests`. */
export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** Dollars from cents; a fraction of a cent (one small request) keeps its digits rather than reading $0.00. */
export function usd(cents: number): string {
  const dollars = Math.abs(cents / 100);
  const digits = dollars === 0 || dollars >= 1 ? 2 : dollars >= 0.01 ? 4 : 6;
  return `${cents < 0 ? '-' : ''}$${dollars.toFixed(digits)}`;
}

/** Unix seconds of a `YYYY-MM-DD` or `YYYY-MM` (UTC). */
export function unixOf(date: string): number {
  const [y = 1970, m = 1, d = 1] = date.split('-').map(Number);
  return Date.UTC(y, m - 1, d) / 1000;
}

/** A `datetime-local` value (the browser's time zone) for Unix seconds, and back. */
export function toLocalInput(s: number | undefined): string {
  if (s === undefined) return '';
  const d = new Date(s * 1000);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

export function fromLocalInput(v: string): number | undefined {
  const ms = v ? new Date(v).getTime() : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}
