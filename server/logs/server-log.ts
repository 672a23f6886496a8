/**
 * The server log: what the service says about itself (a delivery worker error, a watch that fell back to
 * polling, a failed recording) goes to `<data dir>/logs/server.<n>.log` as JSON lines, rotated like the request
 * log, and to stderr as before, so a terminal still shows it.
 */
import { throttledReport } from '../lib/retry-streak.ts';
import { type LogRotation, openRotatingLog } from './rotating-log.ts';

export const SERVER_LOG_STEM = 'server';

export interface ServerLog {
  log(message: string, err?: unknown): void;
  close(): Promise<void>;
}

export async function openServerLog(
  dataDir: string,
  options: LogRotation & { echo?: (message: string, err?: unknown) => void } = {},
): Promise<ServerLog> {
  const echo = options.echo ?? ((message: string, err?: unknown) => console.error(message, err ?? ''));
  const { logger, close } = await openRotatingLog(dataDir, SERVER_LOG_STEM, {
    ...options,
    // A full disk fails every line: said on stderr once a minute (each message itself is echoed there anyway).
    onError: throttledReport('Writing the server log', echo),
  });
  return {
    log(message, err) {
      if (err === undefined) logger.warn({ msg: message });
      else logger.error({ msg: message, err });
      echo(message, err);
    },
    close,
  };
}
