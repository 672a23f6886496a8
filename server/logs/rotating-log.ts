/**
 * The writer under both logs SheetPort keeps (the request log and the server log): pino over a file rotated by
 * size, oldest files removed (size-rolled-file.ts). Writes are asynchronous: a line is handed to sonic-boom, which
 * writes it from libuv's thread pool, and lines that arrive meanwhile go out together in the next write.
 */
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { redactSecrets } from '../lib/redact-secrets.ts';
import { openSizeRolledFile } from './size-rolled-file.ts';

/** Folder under the data dir holding every log SheetPort writes. */
export const LOGS_DIR = 'logs';

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_KEEP_FILES = 5;

/** How a log rotates; unset fields take the defaults above. */
export interface LogRotation {
  /** A file is rotated once it reaches this size (default 10 MB; SHEETPORT_LOG_MAX_MB, read in config.ts). */
  maxBytes?: number;
  /** Rotated files kept besides the current one (default 5; SHEETPORT_LOG_FILES, read in config.ts). */
  keepFiles?: number;
}

/**
 * A pino logger writing JSON lines to `<data dir>/logs/<stem>.<n>.log`, rotated by size, files 0600
 * in a 0700 folder, secrets redacted from every line. Shared by the request log and the server log.
 */
export async function openRotatingLog(
  dataDir: string,
  stem: string,
  options: LogRotation & { onError: (err: unknown) => void },
): Promise<{ logger: Logger; close(): Promise<void> }> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const keepFiles = options.keepFiles ?? DEFAULT_KEEP_FILES;
  const dir = path.join(dataDir, LOGS_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  // Files an older version created with a looser mode; new ones are 0600 from their creation (mode below).
  for (const name of readdirSync(dir)) if (name.startsWith(`${stem}.`)) tighten(path.join(dir, name));

  // The file being written counts among the kept ones; ours are the closed files besides it.
  const stream = openSizeRolledFile({
    dir,
    stem,
    maxBytes: Math.max(1, Math.floor(maxBytes)),
    keep: keepFiles + 1,
    mode: 0o600,
    onError: options.onError,
  });

  const logger: Logger = pino(
    {
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.errWithCause },
      // The last step before a line reaches the file: whatever a message, an error or a field carries, nothing
      // shaped like a secret is written (lib/redact-secrets.ts).
      hooks: { streamWrite: redactSecrets },
    },
    stream,
  );

  let closed: Promise<void> | null = null;
  return {
    logger,
    close() {
      closed ??= new Promise<void>((resolve) => {
        if (stream.destroyed) return resolve();
        stream.once('close', () => resolve());
        stream.end();
      });
      return closed;
    },
  };
}

function tighten(file: string): void {
  try {
    chmodSync(file, 0o600);
  } catch {
    // Removed meanwhile, or not ours to change: the next rotation writes a 0600 file anyway.
  }
}
