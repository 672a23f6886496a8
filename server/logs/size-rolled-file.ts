/**
 * The file a log writes: `<dir>/<stem>.<n>.log`, a new number each time the file reaches its size, the oldest
 * removed past the count kept. A sonic-boom stream (pino's own writer) that reopens on the next file, so lines
 * are written asynchronously and never wait for a rotation. pino-roll did this, but it loads date-fns whole
 * (about 300 modules, 40-50 ms of every start, docs/performance.md) for rotation by time, which SheetPort has no use for.
 */
import { readdirSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import sonicBoom from 'sonic-boom';

// The package is CommonJS: its class is a property of what a default import gives.
const { SonicBoom } = sonicBoom;

/** The stream; `destroyed` is sonic-boom's own flag, which its types leave out. */
export type RolledStream = InstanceType<typeof SonicBoom> & { readonly destroyed: boolean };

export interface SizeRolledFile {
  /** The log's folder, and the start of its files' names. */
  dir: string;
  stem: string;
  /** A file is left for the next once it holds this many bytes (the write that crosses it goes out whole). */
  maxBytes: number;
  /** Files kept, the one being written included. */
  keep: number;
  /** The mode every file is created with. */
  mode: number;
  /** A write, a rotation or a removal that failed. */
  onError: (err: unknown) => void;
}

/** The numbers of the stem's files in `dir`, in order. */
export function logFileNumbers(dir: string, stem: string): number[] {
  const numbers: number[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${stem}.`) || !name.endsWith(EXTENSION)) continue;
    const digits = name.slice(stem.length + 1, -EXTENSION.length);
    if (/^\d{1,9}$/.test(digits)) numbers.push(Number(digits));
  }
  return numbers.sort((a, b) => a - b);
}

const EXTENSION = '.log';

/** The stream, appending to the stem's newest file (after a restart too), or to `<stem>.1.log`. */
export function openSizeRolledFile(options: SizeRolledFile): RolledStream {
  const { dir, stem, maxBytes, keep, mode, onError } = options;
  const fileOf = (n: number) => path.join(dir, `${stem}.${n}${EXTENSION}`);
  let number = logFileNumbers(dir, stem).at(-1) ?? 1;
  let size = sizeOf(fileOf(number));
  const stream = new SonicBoom({ dest: fileOf(number), mode, sync: false }) as RolledStream;
  stream.on('write', (written: number) => {
    size += written;
    if (size < maxBytes) return;
    size = 0;
    number += 1;
    // sonic-boom finishes the write under way, then opens the next file; lines meanwhile wait in its buffer.
    stream.reopen(fileOf(number));
    stream.once('ready', () => void removeOld(dir, stem, keep, fileOf).catch(onError));
  });
  stream.on('error', onError);
  return stream;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

async function removeOld(dir: string, stem: string, keep: number, fileOf: (n: number) => string) {
  const numbers = logFileNumbers(dir, stem);
  const old = numbers.slice(0, Math.max(0, numbers.length - keep));
  await Promise.all(
    old.map((n) =>
      unlink(fileOf(n)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      }),
    ),
  );
}
