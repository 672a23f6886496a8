/**
 * `serve`'s lines while it reads a large file (at start, or again after an outside save): which file, each
 * quarter of the way, and how long it took, so a person waiting on a million-row workbook sees it come. A file
 * whose first report is already half the way (a read of a few chunks at most) gets no lines. Plain lines, not a
 * bar: they stay readable in a log, and several files may be read at once.
 */
import path from 'node:path';

export function readProgressLines(
  print: (line: string) => void,
  now: () => number = () => performance.now(),
): (fraction: number, filePath: string) => void {
  const reads = new Map<string, { started: number; quarter: number; fraction: number }>();
  return (fraction, filePath) => {
    const name = path.basename(filePath);
    let read = reads.get(filePath);
    // A report behind the last one is a new read of the file (the one before failed before its end).
    if (read && fraction < read.fraction) {
      reads.delete(filePath);
      read = undefined;
    }
    if (!read) {
      if (fraction >= 0.5) return;
      read = { started: now(), quarter: 0, fraction };
      reads.set(filePath, read);
      print(`Reading ${name} ...`);
    }
    read.fraction = fraction;
    const quarter = Math.floor(fraction * 4);
    if (quarter > read.quarter && quarter < 4) {
      read.quarter = quarter;
      print(`Reading ${name}: ${quarter * 25}%`);
    }
    if (fraction >= 1) {
      reads.delete(filePath);
      print(`Read ${name} in ${((now() - read.started) / 1000).toFixed(1)} s`);
    }
  };
}
