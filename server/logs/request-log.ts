/**
 * The request log: one JSON line per HTTP request in `<data dir>/logs/requests.<n>.log`, through the rotating
 * writer the server log uses too (rotating-log.ts). `close()` writes out what is still buffered.
 */
import { LOGS_DIR, type LogRotation, openRotatingLog } from './rotating-log.ts';

/** The folder of the request log files, for those who read them (the admin request list). */
export { LOGS_DIR };
/** File name stem: files are `requests.1.log`, `requests.2.log`, ... (highest number = the current one). */
export const REQUEST_LOG_STEM = 'requests';

export interface RequestLogOptions extends LogRotation {
  /** Where a failing log write is reported (a full disk must not take the service down). */
  onError?: (err: unknown) => void;
}

/** One finished request, as logged. Never holds a credential: see server/http/log-requests.ts. */
export interface RequestLogEntry {
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  key_id: string | null;
  /** The MCP tool whose call this line is (http/route-call.ts); absent for a request off the wire. */
  tool?: string;
  /** The client went away before the answer was fully sent. */
  aborted?: true;
  /** For a 5xx: what went wrong inside (pino's error serializer: type, message, stack, cause). */
  err?: unknown;
}

export interface RequestLog {
  write(entry: RequestLogEntry): void;
  /** Writes out what is buffered and closes the file. */
  close(): Promise<void>;
}

export async function openRequestLog(dataDir: string, options: RequestLogOptions = {}): Promise<RequestLog> {
  const { logger, close } = await openRotatingLog(dataDir, REQUEST_LOG_STEM, {
    ...options,
    onError: options.onError ?? ((err) => console.error('Request log write failed:', err)),
  });
  let closed = false;
  return {
    write(entry) {
      if (closed) return;
      if (entry.status >= 500) logger.error(entry);
      else logger.info(entry);
    },
    close() {
      closed = true;
      return close();
    },
  };
}
