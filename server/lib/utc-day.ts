const DAY_MS = 86_400_000;

/** The UTC calendar day of an instant, as `YYYY-MM-DD`: the daily quota's key. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The next midnight UTC after `ms` (epoch ms): when the daily quota resets. Epoch days are exactly 24 h. */
export function nextUtcMidnight(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS) + DAY_MS;
}
