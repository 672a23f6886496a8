/**
 * A closed-loop load: N workers, each making one call after another for a fixed time, as N clients that each
 * wait for their answer before asking again. Used where autocannon cannot go (an MCP client's tool calls), and
 * then for the plain HTTP cases beside it too, so every case of a comparison has the same kind of load generator.
 */

export interface LoopResult {
  calls: number;
  errors: number;
  seconds: number;
  /** Each completed call's latency (ms). */
  latencies: number[];
  /** The first error's message, if any. */
  firstError?: string;
}

/** Runs `workers` (one call each time they are invoked; a throw is an error) concurrently for `seconds`. */
export async function closedLoop(workers: (() => Promise<void>)[], seconds: number): Promise<LoopResult> {
  const result: LoopResult = { calls: 0, errors: 0, seconds, latencies: [] };
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    workers.map(async (call) => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await call();
          result.latencies.push(performance.now() - t);
          result.calls++;
        } catch (err) {
          result.errors++;
          result.firstError ??= err instanceof Error ? err.message : String(err);
        }
      }
    }),
  );
  // The last calls end a little after `end`; count the time they really took.
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

/** The q-quantile (0..1) of `values`, nearest rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median; for an even count, the mean of the two middle values. */
export function median(values: number[]): number {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
