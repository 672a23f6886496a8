/**
 * Request counts per subject (an API key's id, or a client address) and UTC day: the daily quota and the usage
 * report. Counting is in memory and synchronous (it runs on every request); `flush` writes the counts out.
 * store/usage.ts is the SQLite implementation.
 */

export interface DayUsage {
  day: string;
  requests: number;
  refusedPerSecond: number;
  refusedDaily: number;
}

export interface Usage {
  /**
   * Today's counter for a subject, loaded on first use and when the UTC day turns. The answer is live: it
   * follows the counts made after it was read.
   */
  today(subject: string, nowMs: number): Promise<Readonly<DayUsage>>;
  /** Count an allowed request (in memory; written by the next flush). */
  countRequest(subject: string, nowMs: number): void;
  /** Count a refused request (in memory; written by the next flush). */
  countRefused(subject: string, nowMs: number, limit: 'per_second' | 'daily'): void;
  /** Write the counts made since the last flush; a failed flush keeps them for the next. */
  flush(): Promise<void>;
  /** The last `days` UTC days (today included), newest first; days without requests are omitted. */
  history(subject: string, nowMs: number, days?: number): Promise<DayUsage[]>;
}
