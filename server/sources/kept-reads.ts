/**
 * Where the sources keep each local file's read for the next start (sources/workbook/guard/kept-read.ts): a folder
 * of the data dir, and the free space a kept read must leave on its disk.
 */
import path from 'node:path';

export interface KeptReadsPolicy {
  /** `<data dir>/reads`. */
  dir: string;
  /** The free space a kept read must leave on its disk: the service's own floor (`minFreeBytes`). */
  minFreeBytes: number;
}

/** The folder under the data dir that holds the reads kept for the next start. */
export const KEPT_READS_DIR = 'reads';

export function keptReadsPolicyFor(dataDir: string, minFreeBytes: number): KeptReadsPolicy {
  return { dir: path.join(dataDir, KEPT_READS_DIR), minFreeBytes };
}
