/**
 * Removing what an interrupted write left beside a workbook (a crash or SIGKILL mid-write): full copies of the
 * spreadsheet named `.<name>.sheetport-<pid>-<random>.tmp`, and in the rarest case the `.prev` a swap had moved
 * aside (atomic-file.ts), which is put back when the workbook's path is empty. Run when a Source opens the file,
 * before it reads or writes it. A leftover whose process still runs is left alone unless it is over an hour old:
 * another SheetPort on the same folder, or this one (another service or Source in this process may have a write
 * of the same file under way).
 */
import fsSync from 'node:fs';
import path from 'node:path';
import { TEMP_FILE_PATTERN } from './atomic-file.ts';

const STALE_MS = 60 * 60 * 1000;

export interface LeftoverOptions {
  now?: () => number;
  /** Whether a process runs; injectable for tests. */
  isRunning?: (pid: number) => boolean;
  log?: (message: string, err?: unknown) => void;
}

/** Removes (or, for the workbook's only copy, puts back) this file's leftovers; returns how many it handled. */
export function removeLeftovers(filePath: string, options: LeftoverOptions = {}): number {
  const now = options.now ?? Date.now;
  const isRunning = options.isRunning ?? processRuns;
  const dir = path.dirname(filePath);
  const prefix = `.${path.basename(filePath)}.sheetport-`;
  let names: string[];
  try {
    names = fsSync.readdirSync(dir).filter((n) => n.startsWith(prefix));
  } catch {
    return 0; // no folder to look in: the read that follows says what is wrong
  }
  let handled = 0;
  // A `.prev` first: when the workbook's path is empty it is the workbook.
  for (const name of names.sort((a, b) => (a.endsWith('.prev') ? -1 : b.endsWith('.prev') ? 1 : 0))) {
    const m = TEMP_FILE_PATTERN.exec(name);
    if (!m) continue;
    const leftover = path.join(dir, name);
    try {
      const st = fsSync.lstatSync(leftover);
      if (!st.isFile()) continue;
      const pid = m[1] === undefined ? null : Number(m[1]);
      if (pid !== null && isRunning(pid) && now() - st.mtimeMs < STALE_MS) continue;
      if (m[2] === 'prev' && !fsSync.existsSync(filePath)) fsSync.renameSync(leftover, filePath);
      else fsSync.unlinkSync(leftover);
      handled++;
    } catch (err) {
      options.log?.(`Could not remove ${name}, left by an interrupted write`, err);
    }
  }
  return handled;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // runs, as another user
  }
}
