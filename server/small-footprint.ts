/**
 * V8's garbage-collector sizing for a service that lives in a tray: memory before peak throughput.
 *
 * Left to its defaults, V8 lets the old generation grow to up to four times what is live between full
 * collections, and keeps the pages a collection frees in a pool that only its memory reducer empties, after
 * 8 or more quiet seconds. A burst of requests then leaves the process holding the burst's high-water mark:
 * 300 to 540 MB resident after the json-server comparison's cases, depending on whether the reducer has run,
 * against 275-298 MB with a full collection once live memory has grown by 30% (docs/performance.md). The
 * cost is more full collections, which V8 mostly does on its own threads: reads and appends measured within
 * the runs' noise of the defaults.
 *
 * V8 reads the setting whenever it sizes the heap, so it takes effect when set at run time. It is set first
 * thing (small-footprint-first.ts) by whatever starts the service, before the modules load; a value the
 * process was started with (NODE_OPTIONS, node's own arguments) wins.
 */
import v8 from 'node:v8';

const SETTINGS = [
  // The next full collection once live memory has grown by 30% (V8's default lets it grow up to 300%).
  { name: 'heap-growing-percent', flag: '--heap-growing-percent=30' },
] as const;

/** The flags applied (those the process was not already given). */
export function favourSmallFootprint(
  given: readonly string[] = [...process.execArgv, process.env.NODE_OPTIONS ?? ''],
): string[] {
  const already = given.join(' ').replaceAll('_', '-');
  const applied: string[] = [];
  for (const { name, flag } of SETTINGS) {
    if (already.includes(name)) continue;
    v8.setFlagsFromString(flag);
    applied.push(flag);
  }
  return applied;
}
