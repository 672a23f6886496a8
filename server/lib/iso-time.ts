/** Epoch milliseconds -> ISO 8601 UTC string; null stays null. Every API and CLI time goes out this way. */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
