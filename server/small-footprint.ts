/**
 * V8's garbage-collector sizing for a service that lives in a tray: memory before peak throughput.
 *
 * Left to its defaults, V8 lets the old generation grow to several times what is live between full
 * collections and the young generation to 32 MB, and keeps the pages a collection frees in a pool that only
 * its memory reducer empties, after 8 or more quiet seconds. A burst of requests then leaves the process
 * holding the burst's high-water mark: about 500 MB resident after the json-server comparison's cases,
 * against about 280 MB with these two settings (docs/performance.md). The cost is more, smaller
 * collections: measured reads and appends stay within about 10% of the defaults.
 *
 * Both are read by V8 whenever it sizes the heap, so they take effect when set at run time. They are set
 * first thing by the `sheetport` command and the tray app, before the modules load; a flag the process was
 * started with (NODE_OPTIONS, node's own arguments) wins.
 */
import v8 from 'node:v8';

const SETTINGS = [
  // Old generation: the next full collection when live memory has grown by 30% (V8 allows up to 300%).
  { name: 'heap-growing-percent', flag: '--heap-growing-percent=30' },
  // Young generation: keep its starting size (two 1 MB semi-spaces) instead of doubling up to 16 MB each.
  { name: 'semi-space-growth-factor', flag: '--semi-space-growth-factor=1' },
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
