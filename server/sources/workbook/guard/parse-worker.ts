/**
 * The parse thread: turns one file's bytes into tabs away from the event loop. Started by
 * `parse-off-thread.ts` with a heap cap, kept warm for the next small file, killed when a parse overruns.
 * A zip package's parts are inflated against their declared sizes, so lying headers cannot inflate past what
 * the main thread allowed.
 */
import { parentPort } from 'node:worker_threads';
import type { GridLimits } from '../../tab.ts';
import { type EngineName, engineNamed } from '../engines.ts';
import { crcsOf, skeletonOf } from './kept-read.ts';
import { parserFailure } from './unreadable.ts';
import { checkZipPackage } from './zip-package.ts';
import type { ZipSizeLimits } from './zip-sizes.ts';

export interface ParseJob {
  engine: EngineName;
  filePath: string;
  bytes: ArrayBuffer;
  zip: ZipSizeLimits;
  grid: GridLimits;
}

/**
 * What the worker posts back: the engine's read (engines.ts) as its skeleton and the buffers it moved rather than
 * copied, with their CRC-32s (so the service's thread keeps the read as it came, without serializing it again or
 * spending time on its bytes: kept-read.ts), or the error in a form structured clone keeps.
 */
export type ParseReply =
  | { ok: true; skeleton: Uint8Array; buffers: ArrayBuffer[]; crcs: number[] }
  | { ok: false; error: { code: string; message: string; details: Record<string, unknown> } | null };

/** Said while a read goes on: how far it has come, 0 to 1 (engines.ts `readOffThread`'s `onProgress`). */
export interface ParseProgress {
  progress: number;
}

/** Buffers the last reply may move to the service's thread instead of copying them. */
let transfer: ArrayBuffer[] = [];

async function run(job: ParseJob): Promise<ParseReply> {
  transfer = [];
  const bytes = new Uint8Array(job.bytes);
  const engine = engineNamed(job.engine);
  try {
    if (engine.zipPackage) checkZipPackage(bytes, job.filePath, job.zip);
    const progress = (fraction: number) =>
      parentPort?.postMessage({ progress: fraction } satisfies ParseProgress);
    const read = await engine.readOffThread(bytes, job.filePath, job.grid, progress);
    const buffers = [...new Set(read.transfer)];
    const skeleton = skeletonOf(read.payload, buffers);
    transfer = [...buffers, skeleton.buffer as ArrayBuffer];
    return { ok: true, skeleton, buffers, crcs: crcsOf(skeleton, buffers) };
  } catch (e) {
    const failure = parserFailure(e, job.filePath);
    return { ok: false, error: { code: failure.code, message: failure.message, details: failure.details } };
  }
}

parentPort?.on('message', async (job: ParseJob) => {
  const reply = await run(job);
  parentPort?.postMessage(reply, transfer);
});
