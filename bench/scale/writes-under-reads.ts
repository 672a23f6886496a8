/**
 * Writes timed one after another while a loop of small reads runs beside them, as a dashboard or a client
 * polling the service would: the longest a read waited is what a write costs everyone else.
 */
import type { ServerUnderTest } from './server.ts';
import { type Call, send, sleep, timed } from './timing.ts';

export interface WriteTimes {
  deletes: number[];
  appends: number[];
  updates: number[];
  /** The first write that failed, if one did (the run stops there). */
  failure: string | null;
}

export interface ReadsDuringWrites {
  count: number;
  longestMs: number;
  /** The 99th percentile of the reads' times (what the slowest one in a hundred waited). */
  p99Ms: number;
  /** Reads that failed (a reset connection, an error status), with the first one's message. */
  errors: number;
  firstError: string | null;
}

/** Loops `read` until `stop` is set, one at a time, timing each (a failed read counts for its time too). */
async function readLoop(read: () => Call, stop: { set: boolean }): Promise<ReadsDuringWrites> {
  const result: ReadsDuringWrites = { count: 0, longestMs: 0, p99Ms: 0, errors: 0, firstError: null };
  const times: number[] = [];
  while (!stop.set) {
    const started = performance.now();
    try {
      await send(read(), 600_000);
    } catch (err) {
      result.errors++;
      result.firstError ??=
        err instanceof Error ? `${err.message}${err.cause ? ` (${String(err.cause)})` : ''}` : String(err);
      await sleep(50);
    }
    result.count++;
    times.push(performance.now() - started);
    result.longestMs = Math.max(result.longestMs, times.at(-1) as number);
  }
  times.sort((a, b) => a - b);
  result.p99Ms = times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? 0;
  return result;
}

/**
 * `count` deletes, then `count` appends, then `count` updates (deletes first, so a full sheet has room for the
 * appends), with the read loop running from just before the first write to just after the last.
 */
export async function writesUnderReads(
  server: ServerUnderTest,
  count: number,
): Promise<{ writes: WriteTimes; reads: ReadsDuringWrites }> {
  const writes: WriteTimes = { deletes: [], appends: [], updates: [], failure: null };
  const stop = { set: false };
  const reads = readLoop(() => server.smallRead(), stop);
  await sleep(20);
  try {
    const plan: [number[], (i: number) => Call][] = [
      [writes.deletes, (i) => server.deleteRow(i)],
      [writes.appends, (i) => server.appendRow(i)],
      [writes.updates, (i) => server.updateRow(i)],
    ];
    for (const [times, make] of plan)
      for (let i = 0; i < count; i++) times.push(await timed(make(i), 600_000));
  } catch (err) {
    writes.failure = err instanceof Error ? err.message : String(err);
  } finally {
    stop.set = true;
  }
  return { writes, reads: await reads };
}
