/**
 * Notices saves of one file by other programs. The file's folder is watched (Excel and LibreOffice save by
 * writing a temp file and renaming it over the original, which a watch on the file itself would lose); an event
 * for the file's name, after a short quiet time (a save is several events), tells the listener. A slow poll
 * backs the watch up (network drives do not always report events). The listener re-reads only when the
 * file's signature changed, so our own writes, already matched, are not seen twice.
 */
import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import { realTimers, type Timers } from '../../lib/timers.ts';
import { SAVE_QUIET_MS } from './guard/half-saved.ts';

export interface FileWatchOptions {
  /** Quiet time after the last folder event before the listener is told. */
  debounceMs?: number;
  /** The fallback poll: the listener is told this often whatever the folder reports. */
  pollMs?: number;
  timers?: Timers;
  log?: (message: string, err?: unknown) => void;
}

export function watchFile(
  filePath: string,
  onChange: () => void,
  options: FileWatchOptions = {},
): () => void {
  const timers = options.timers ?? realTimers;
  const debounceMs = options.debounceMs ?? SAVE_QUIET_MS;
  const log = options.log ?? (() => {});
  const name = path.basename(filePath);
  let quiet: { cancel(): void } | null = null;
  let folder: FSWatcher | null = null;
  try {
    folder = watch(path.dirname(filePath), { persistent: false }, (_event, file) => {
      if (file !== null && file !== name) return;
      quiet?.cancel();
      quiet = timers.after(debounceMs, () => {
        quiet = null;
        onChange();
      });
    });
    folder.on('error', (err) => log(`Watching ${name} failed; polling it instead`, err));
  } catch (err) {
    log(`Cannot watch the folder of ${name}; polling it instead`, err);
  }
  const poll = timers.every(options.pollMs ?? 2000, onChange);
  return () => {
    poll.cancel();
    quiet?.cancel();
    folder?.close();
  };
}
