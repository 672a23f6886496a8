/**
 * One server under test measured from its cold start to its last write: memory once loaded and settled, reads,
 * an outside edit, and writes with reads beside them. Answers the table's cells for that server's column.
 */
import { memoryOf } from './memory.ts';
import { outsideEditVisible } from './outside-edit.ts';
import type { ServerUnderTest } from './server.ts';
import { percentile, sample, showMs, showWrites, sleep } from './timing.ts';
import { writesUnderReads } from './writes-under-reads.ts';

export const ROWS = {
  opens: 'opens with default settings',
  connect: 'connect (`sheetport connect` reads the file)',
  cold: 'cold start (spawn to first 100-row list answered)',
  coldChanged: 'cold start again after its writes (the file changed: parsed anew)',
  peakLoaded: 'peak RSS once loaded (VmHWM)',
  settled: 'settled RSS (VmRSS after a quiet 10 s)',
  list: 'read a 100-row page at a new offset, p50',
  search: 'uncached search (a new Order ID each time), p50',
  outside: 'outside edit (temp file renamed over it) visible after',
  deletes: 'delete first / median / max',
  appends: 'append first / median / max',
  updates: 'update first / median / max',
  readDuringWrites: 'read while the writes run: longest, p99',
  peakRun: 'peak RSS over the whole run',
  check: 'file after the writes, read by python',
} as const;

export type Column = Partial<Record<keyof typeof ROWS, string>>;

const QUIET_MS = 10_000;

export async function measureServer(
  server: ServerUnderTest,
  { edited, writes }: { edited: string | null; writes: number },
): Promise<{ column: Column; deleted: number; appended: number }> {
  const column: Column = { cold: showMs(server.coldStartMs) };
  const progress = (what: string) => console.error(`  ${server.name}: ${what}`);
  progress(`answered in ${showMs(server.coldStartMs)}; quiet ${QUIET_MS / 1000} s`);
  await sleep(QUIET_MS);
  const loaded = await memoryOf(server.pid);
  column.peakLoaded = `${loaded.peakMb} MB`;
  column.settled = `${loaded.residentMb} MB`;

  progress('reads');
  const list = await sample((i) => server.listPage(i), { maxCount: 50, budgetMs: 10_000 });
  column.list = `${showMs(percentile(list, 50))} (${list.length} reads)`;
  const search = await sample((i) => server.search(i), { maxCount: 30, budgetMs: 15_000 });
  column.search = `${showMs(percentile(search, 50))} (${search.length} reads)`;

  if (edited && server.file) {
    progress('outside edit');
    const ms = await outsideEditVisible(server, edited);
    column.outside = Number.isNaN(ms) ? 'not seen in 10 min' : showMs(ms);
  } else column.outside = '- (does not watch its file)';

  progress(`${writes} deletes, appends and updates, small reads beside them`);
  const { writes: times, reads } = await writesUnderReads(server, writes);
  column.deletes = showWrites(times.deletes);
  column.appends = showWrites(times.appends);
  column.updates = showWrites(times.updates);
  if (times.failure) column.updates = `${column.updates}; **failed**: ${times.failure.slice(0, 200)}`;
  const failed = reads.errors ? `, **${reads.errors} failed**: ${reads.firstError?.slice(0, 160)}` : '';
  column.readDuringWrites = `${showMs(reads.longestMs)}, p99 ${showMs(reads.p99Ms)} (${reads.count} reads${failed})`;
  column.peakRun = `${(await memoryOf(server.pid)).peakMb} MB`;
  return { column, deleted: times.deletes.length, appended: times.appends.length };
}
