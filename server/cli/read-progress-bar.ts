/**
 * A progress bar on the terminal while `sheetport connect` reads a large file (a million-row sheet takes
 * seconds): on standard error, and only when it is a terminal and the output is for a person. On a pipe, or
 * with `--json`, nothing is added. A small file finishes before its first report, so it never shows a bar.
 */
import { SingleBar } from 'cli-progress';

export interface ReadProgressBar {
  /** What the source reports to (SourceOptions.onReadProgress); absent when no bar is shown. */
  onReadProgress?: (fraction: number) => void;
  /** Takes the bar off the terminal, read or not. */
  stop(): void;
}

export function readProgressBar(
  forPerson: boolean,
  stream: NodeJS.WriteStream = process.stderr,
): ReadProgressBar {
  if (!forPerson || !stream.isTTY) return { stop: () => {} };
  const bar = new SingleBar({
    stream,
    format: 'Reading the file [{bar}] {percentage}%',
    barsize: 30,
    hideCursor: true,
    clearOnComplete: true,
  });
  let shown = false;
  return {
    onReadProgress: (fraction) => {
      const percent = Math.floor(fraction * 100);
      if (!shown) {
        shown = true;
        bar.start(100, percent);
      } else bar.update(percent);
    },
    stop: () => {
      if (shown) bar.stop();
    },
  };
}
