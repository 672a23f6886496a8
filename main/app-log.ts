/**
 * The app's own log (electron-log): `<data dir>/logs/app.log`, beside the service's request and server logs, so
 * "Open logs" shows them all in one folder. At 1 MiB the file is rotated to app.1.log (app.2.log, app.3.log
 * before it); older files are deleted.
 */
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { redactSecrets } from '../server/index.ts';

export const APP_LOG_MAX_BYTES = 1024 * 1024;
export const APP_LOG_KEEP = 3;

export function logsDir(dataDir: string): string {
  return path.join(dataDir, 'logs');
}

/** app.log -> app.1.log, app.1.log -> app.2.log, ...; the oldest is dropped. Synchronous, as electron-log needs. */
export function rotateAppLog(file: string, keep: number = APP_LOG_KEEP): void {
  const { dir, name, ext } = path.parse(file);
  const numbered = (n: number) => path.join(dir, `${name}.${n}${ext}`);
  rmSync(numbered(keep), { force: true });
  for (let n = keep - 1; n >= 1; n--) {
    try {
      renameSync(numbered(n), numbered(n + 1));
    } catch {
      // Not there yet: fewer rotations so far than files kept.
    }
  }
  renameSync(file, numbered(1));
}

/** The part of electron-log's logger configured here (the same in `electron-log/main` and `electron-log/node`). */
export interface FileLogger {
  transports: {
    file: {
      // Method syntax: electron-log's own signatures take more specific arguments than these.
      resolvePathFn(...args: never[]): string;
      maxSize: number;
      archiveLogFn(file: { toString(): string }): void;
    };
  };
  /** electron-log's hooks: each may change a message before a transport writes it. */
  hooks: ((message: never, transport?: never, transportName?: string) => unknown)[];
}

/** A logged value with anything shaped like a secret hidden: strings and errors (message and stack). */
function redacted(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value instanceof Error) {
    const copy = Object.create(Object.getPrototypeOf(value)) as Error;
    Object.assign(copy, value);
    Object.defineProperty(copy, 'message', { value: redactSecrets(value.message), enumerable: false });
    Object.defineProperty(copy, 'stack', { value: redactSecrets(value.stack ?? ''), enumerable: false });
    return copy;
  }
  return value;
}

export function configureAppLog(logger: FileLogger, dataDir: string): string {
  const file = path.join(logsDir(dataDir), 'app.log');
  logger.transports.file.resolvePathFn = () => file;
  logger.transports.file.maxSize = APP_LOG_MAX_BYTES;
  logger.transports.file.archiveLogFn = (old) => rotateAppLog(old.toString());
  // Like the service's logs: nothing shaped like a key, token or code reaches the data dir (docs/security.md,
  // "Secrets a request carries").
  logger.hooks.push((message: { data: unknown[] }, _transport?: unknown, transportName?: string) =>
    transportName === 'file' ? { ...message, data: message.data.map(redacted) } : message,
  );
  return file;
}
