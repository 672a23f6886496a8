/**
 * Parses a file in a worker thread with a heap cap and a deadline, so the event loop keeps answering every
 * other request while a big (or hostile) workbook is read, and a parse that overruns is killed instead of
 * taking the process's memory or time. The snapshot comes back by structured clone.
 *
 * Starting a worker costs about a second on a busy machine (loading the parser), far more than parsing a
 * small file, so a worker that parsed a small file stays warm for the next one, for a while: a service that
 * has read its files and only serves them (a tray app, most of its life) keeps no parser in memory. Each parse
 * has a worker of its own (a slow file never queues others behind it); after a big file, or any failure, the
 * worker is ended so its heap goes back to the system.
 */
import { Worker } from 'node:worker_threads';
import type { FileLimits } from '../../../config.ts';
import { AppError, type ErrorCode } from '../../../errors.ts';
import { workerScriptUrl } from '../../../lib/archive-path.ts';
import type { ProgressReport } from '../../../lib/byte-progress.ts';
import type { EngineName } from '../engines.ts';
import { payloadOf, type ReadToKeep } from './kept-read.ts';
import type { ParseJob, ParseProgress, ParseReply } from './parse-worker.ts';
import { parserFailure, unreadable } from './unreadable.ts';

/** The parse worker's script beside the module at `moduleUrl` (archive-path.ts `workerScriptUrl`). */
export function parseWorkerUrl(moduleUrl: string): URL {
  return workerScriptUrl('parse-worker', moduleUrl);
}

const WORKER_URL = parseWorkerUrl(import.meta.url);
/** Workers kept warm, and the largest file after which a worker is kept. */
const MAX_IDLE = 2;
const KEEP_AFTER_BYTES = 4 * 1024 * 1024;
/** A warm worker not asked for this long ends (its isolate's memory goes back to the system). */
const IDLE_MS = 30_000;

export interface OffThreadParse {
  engine: EngineName;
  filePath: string;
  /** Taken over: the buffer is moved to the worker and unusable here afterwards. */
  bytes: Uint8Array;
  limits: FileLimits;
  /** Hears how far the read has come, 0 to 1, while it goes on (a large sheet's scan). */
  onProgress?: ProgressReport;
}

/**
 * A read as it arrived from the parse thread: its payload, and what the payload was sent as (its skeleton and the
 * buffers in it that were moved rather than copied, with their CRC-32s as the parse thread made them).
 */
export interface ParsedRead extends ReadToKeep {
  payload: unknown;
}

/** Idle warm workers by heap cap (a worker's cap is fixed when it starts). Unref'd: they never hold the process. */
const idle = new Map<number, Worker[]>();

/** What each idle worker does when it leaves the pool (its exit listener, its idle timer), undone when it is put back to work. */
const leavePool = new WeakMap<Worker, () => void>();

function acquire(memoryMb: number): Worker {
  const warm = idle.get(memoryMb)?.pop();
  if (warm) {
    leavePool.get(warm)?.();
    warm.ref();
    return warm;
  }
  const worker = new Worker(WORKER_URL, {
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    stdout: false,
    stderr: false,
  });
  worker.ref();
  return worker;
}

function release(worker: Worker, memoryMb: number, keep: boolean): void {
  const pool = idle.get(memoryMb) ?? [];
  if (!keep || pool.length >= MAX_IDLE) {
    worker.terminate().catch(() => {});
    return;
  }
  worker.unref();
  // A warm worker that dies while idle (it should not) just leaves the pool; one idle too long is ended.
  const leave = () => {
    const at = pool.indexOf(worker);
    if (at >= 0) pool.splice(at, 1);
  };
  const timer = setTimeout(() => {
    leave();
    worker.terminate().catch(() => {});
  }, IDLE_MS).unref();
  leavePool.set(worker, () => {
    clearTimeout(timer);
    worker.off('exit', leave);
  });
  worker.once('exit', leave);
  pool.push(worker);
  idle.set(memoryMb, pool);
}

/** Starts a worker ahead of the first parse (it loads the parser meanwhile), unless one is waiting already. */
export function warmParseWorker(limits: FileLimits): void {
  if ((idle.get(limits.parseMemoryMb)?.length ?? 0) > 0) return;
  release(acquire(limits.parseMemoryMb), limits.parseMemoryMb, true);
}

/** An ArrayBuffer holding exactly `bytes`, movable to another thread without copying when possible. */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  if (whole && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return bytes.slice().buffer as ArrayBuffer;
}

/** Parses under way, each with the way to end it at once. */
const running = new Set<() => void>();

/**
 * End every parse under way now: their workers are terminated (their heaps go with them) and their readers
 * answered 503. The service calls this when it stops, so a large file in the middle of a parse never holds the
 * process past its stop deadline.
 */
export function cancelAllParses(): void {
  for (const cancel of [...running]) cancel();
}

/** The engine's read of the file (engines.ts `readOffThread`), as it arrived in this thread. */
export async function parseOffThread(request: OffThreadParse): Promise<unknown> {
  return (await parseOffThreadRead(request)).payload;
}

/** `parseOffThread`, with the buffers the read holds (which kept-read.ts writes without copying). */
export function parseOffThreadRead(request: OffThreadParse): Promise<ParsedRead> {
  const { filePath, limits } = request;
  const size = request.bytes.byteLength;
  const buffer = ownBuffer(request.bytes);
  const job: ParseJob = {
    engine: request.engine,
    filePath,
    bytes: buffer,
    zip: { maxInflatedBytes: limits.maxInflatedBytes, maxPartRatio: limits.maxPartRatio },
    grid: { maxCells: limits.maxCells, maxTextChars: limits.maxTextChars },
  };
  return new Promise((resolve, reject) => {
    const worker = acquire(limits.parseMemoryMb);
    let settled = false;
    const finish = (keep: boolean, outcome: () => void) => {
      if (settled) return;
      settled = true;
      running.delete(cancel);
      clearTimeout(timer);
      // Only our own listeners: the Worker keeps internal ones that removeAllListeners would break.
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      release(worker, limits.parseMemoryMb, keep);
      outcome();
    };
    const timer = setTimeout(() => {
      const seconds = Math.round(limits.parseTimeoutMs / 100) / 10;
      finish(false, () =>
        reject(
          unreadable(
            'too_large',
            filePath,
            `took longer than ${seconds} s to read and was stopped (SHEETPORT_PARSE_TIMEOUT_MS).`,
          ),
        ),
      );
    }, limits.parseTimeoutMs);
    const onMessage = (reply: ParseReply | ParseProgress) => {
      if ('progress' in reply) {
        if (!settled) request.onProgress?.(reply.progress);
        return;
      }
      finish(reply.ok && size <= KEEP_AFTER_BYTES, () => {
        if (reply.ok) {
          const { skeleton, buffers, crcs } = reply;
          resolve({ payload: payloadOf(skeleton, buffers), skeleton, buffers, crcs });
        } else if (reply.error) {
          const { code, message, details } = reply.error;
          reject(parserFailure(new AppError(code as ErrorCode, message, details), filePath));
        } else reject(parserFailure(null, filePath));
      });
    };
    const onError = (err: NodeJS.ErrnoException) =>
      finish(false, () => {
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
      });
    const onExit = () =>
      finish(false, () =>
        reject(new AppError('internal_error', 'The workbook reader stopped unexpectedly.')),
      );
    const cancel = () =>
      finish(false, () => reject(new AppError('upstream_unavailable', 'The service is stopping.')));
    running.add(cancel);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage(job, [buffer]);
  });
}
