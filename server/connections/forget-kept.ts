/**
 * What a removed connection leaves behind in the data dir for a later start (a local file's kept read), dropped
 * with it. A cache only: one that cannot be removed now goes after a month unused (sources/workbook/guard/kept-read.ts).
 */
import type { ConnectionRecord } from '../repositories/connections.ts';
import { sourceKind } from '../sources/index.ts';
import type { SourceOptions } from '../sources/kind.ts';

export async function forgetKept(
  connection: Pick<ConnectionRecord, 'sourceKind' | 'location'>,
  options: SourceOptions,
): Promise<void> {
  try {
    await sourceKind(connection.sourceKind).forgetKept?.(connection.location, options);
  } catch {
    // Left for the month's pruning: the connection is removed either way.
  }
}
