/**
 * Parses a file in a worker thread with a heap cap and a deadline, so the event loop keeps answering every
 * other request while a big (or hostile) workbook is read, and a parse that overruns is killed instead of
 * taking the process's memory or time. The snapshot comes back by structured clone.
 */
import { Worker } from 'node:worker_threads';
import type { FileLimits } from '../../config.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import type { TabSnapshot } from '../source.ts';
import type { FormatName } from '../workbook/formats.ts';
import type { ParseJob, ParseReply } from './parse-worker.ts';
import { parserFailure, unreadable } from './unreadable.ts';

// The worker runs from source (.ts, Node's type stripping) in a checkout and as .js from the build.
const WORKER_URL = new URL(
  `./parse-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export interface OffThreadParse {
  format: FormatName;
  filePath: string;
  /** Taken over: the buffer is moved to the worker and unusable here afterwards. */
  bytes: Uint8Array;
  limits: FileLimits;
}

/** An ArrayBuffer holding exactly `bytes`, movable to another thread without copying when possible. */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  if (whole && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return bytes.slice().buffer as ArrayBuffer;
}

export function parseOffThread(request: OffThreadParse): Promise<TabSnapshot[]> {
  const { filePath, limits } = request;
  const buffer = ownBuffer(request.bytes);
  const job: ParseJob = {
    format: request.format,
    filePath,
    bytes: buffer,
    maxInflatedBytes: limits.maxInflatedBytes,
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      workerData: job,
      transferList: [buffer],
      resourceLimits: { maxOldGenerationSizeMb: limits.parseMemoryMb },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.terminate().catch(() => {});
      outcome();
    };
    const timer = setTimeout(() => {
      const seconds = Math.round(limits.parseTimeoutMs / 100) / 10;
      finish(() =>
        reject(
          unreadable(
            'too_large',
            filePath,
            `took longer than ${seconds} s to read and was stopped (SHEETPORT_PARSE_TIMEOUT_MS).`,
          ),
        ),
      );
    }, limits.parseTimeoutMs);
    worker.once('message', (reply: ParseReply) =>
      finish(() => {
        if (reply.ok) resolve(reply.tabs as TabSnapshot[]);
        else if (reply.error) {
          const { code, message, details } = reply.error;
          reject(parserFailure(new AppError(code as ErrorCode, message, details), filePath));
        } else reject(parserFailure(null, filePath));
      }),
    );
    worker.once('error', (err: NodeJS.ErrnoException) =>
      finish(() => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          reject(
            unreadable(
              'too_large',
              filePath,
              `needs more than ${limits.parseMemoryMb} MB of memory to read (SHEETPORT_PARSE_MEMORY_MB).`,
            ),
          );
        } else {
          // Not the file's fault (the worker failed to start, say): an internal error, not remembered.
          reject(
            Object.assign(new AppError('internal_error', 'The workbook reader failed.'), { cause: err }),
          );
        }
      }),
    );
    worker.once('exit', () =>
      finish(() => reject(new AppError('internal_error', 'The workbook reader stopped unexpectedly.'))),
    );
  });
}
