/** The UTC calendar day of an instant, as `YYYY-MM-DD`: the daily quota's key. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The next midnight UTC after `ms` (epoch ms): when the daily quota resets. */
export function nextUtcMidnight(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}
