/**
 * The piece threads: up to two threads that compress pieces of rows (a sheet read for its first write, about
 * two thousand pieces at a million rows) and move them for a delete (piece-move.ts: a delete in the middle of
 * a million rows renumbers and recompresses about a thousand). Seconds of work that run here beside the
 * service's thread, which only hands the bytes over and keeps answering. The threads start when first needed
 * (their script imports only zlib and the renumbering: tens of milliseconds) and end when idle, so a service
 * that does not write holds none. A thread that fails is replaced; its jobs answer null, and the caller does
 * the work the general way (a move) or on the thread pool (a compression).
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerScriptUrl } from '../../../lib/archive-path.ts';
import { freeBytes } from '../../../lib/free-buffer.ts';
import { type DeflatedPiece, deflatePieceBytesAsync, ownBytes } from './chunked-deflate.ts';
import type { MovedPiece } from './piece-move.ts';
import type { RewrittenPiece } from './piece-rewrite.ts';
import type { PieceJob, PieceReply } from './piece-thread.ts';
import type { PortableRewrite } from './row-slots.ts';

const WORKER_URL = workerScriptUrl('piece-thread', import.meta.url);
/** Two threads at most: the machine's other cores, and the service's thread answering meanwhile. */
const THREADS = Math.max(1, Math.min(2, os.availableParallelism()));
/** Threads not asked for this long end, giving their memory back. */
const IDLE_MS = 10_000;

type Waiting = (piece: PieceReply['piece']) => void;

interface Thread {
  worker: Worker;
  /** Jobs sent and not answered. */
  jobs: Map<number, Waiting>;
  idle: NodeJS.Timeout | undefined;
}

const threads: Thread[] = [];
let nextId = 0;

function start(): Thread {
  const worker = new Worker(WORKER_URL);
  const thread: Thread = { worker, jobs: new Map(), idle: undefined };
  worker.unref();
  const fail = () => {
    const index = threads.indexOf(thread);
    if (index >= 0) threads.splice(index, 1);
    for (const done of thread.jobs.values()) done(null);
    thread.jobs.clear();
  };
  worker.on('message', (reply: PieceReply) => {
    const done = thread.jobs.get(reply.id);
    thread.jobs.delete(reply.id);
    if (thread.jobs.size === 0) rest(thread);
    done?.(reply.piece);
  });
  worker.on('error', fail);
  worker.on('exit', fail);
  threads.push(thread);
  return thread;
}

/** No job left: unref'd so it never holds the process, and ended after a while. */
function rest(thread: Thread): void {
  thread.worker.unref();
  clearTimeout(thread.idle);
  thread.idle = setTimeout(() => {
    if (thread.jobs.size === 0) void thread.worker.terminate();
  }, IDLE_MS);
  thread.idle.unref();
}

/**
 * Ends now every thread without a job, rather than after IDLE_MS: when a burst of work is known to be over and
 * no write is known to follow (a document prepared behind a read), two idle threads hold about 90 MB at a
 * million rows until they end. A write that comes later starts them again (tens of milliseconds).
 */
export function endIdlePieceThreads(): void {
  for (const thread of [...threads]) {
    if (thread.jobs.size > 0) continue;
    clearTimeout(thread.idle);
    void thread.worker.terminate();
  }
}

/** How many piece threads run now (they start on demand and end when idle). */
export function runningPieceThreads(): number {
  return threads.length;
}

/** The thread with the fewest jobs, a new one while fewer than THREADS run. */
function pick(): Thread {
  const least = threads.reduce<Thread | undefined>(
    (best, thread) => (best === undefined || thread.jobs.size < best.jobs.size ? thread : best),
    undefined,
  );
  return least && (least.jobs.size === 0 || threads.length >= THREADS) ? least : start();
}

function send(job: PieceJob, transfer: ArrayBuffer[]): Promise<PieceReply['piece']> {
  return new Promise((resolve) => {
    const thread = pick();
    thread.jobs.set(job.id, resolve);
    clearTimeout(thread.idle);
    thread.worker.ref();
    thread.worker.postMessage(job, transfer);
  });
}

const deflated = (piece: NonNullable<PieceReply['piece']>): DeflatedPiece => ({
  compressed: Buffer.from(piece.compressed.buffer, piece.compressed.byteOffset, piece.compressed.length),
  crc: piece.crc,
  size: piece.size,
});

/** `movePiece` on a piece thread; null when the text is not in the handled form or the thread failed. */
export async function movePieceOffThread(
  piece: DeflatedPiece,
  shift: number,
  rows: number,
): Promise<MovedPiece | null> {
  const { crc, size } = piece;
  const compressed = ownBytes(piece.compressed);
  const moved = await send({ id: nextId++, kind: 'move', compressed, crc, size, shift, rows }, []);
  return moved && { piece: deflated(moved), growth: moved.growth };
}

/** `rewritePiece` on a piece thread; null when the thread failed. */
export async function rewritePieceOffThread(
  piece: DeflatedPiece,
  numbers: Int32Array,
  lengths: Int32Array,
  rewrites: PortableRewrite[],
): Promise<RewrittenPiece | null> {
  const { crc, size } = piece;
  const compressed = ownBytes(piece.compressed);
  const job = { id: nextId++, kind: 'rewrite' as const, compressed, crc, size, numbers, lengths, rewrites };
  const reply = await send(job, []);
  if (!reply?.rewritten) return null;
  return { piece: deflated(reply), ...reply.rewritten };
}

/**
 * `deflatePieceBytes(bytes, false)` on a piece thread; `bytes` is copied first unless it owns its buffer. Should
 * the thread fail, the piece is compressed on the thread pool instead: a write never fails for want of a thread.
 * The bytes are taken over: once the thread has answered, a buffer of their own is given back at once (a
 * million-row sheet sends 347 MB of them, which otherwise wait for a full collection).
 */
export async function deflatePieceOffThread(bytes: Uint8Array): Promise<DeflatedPiece> {
  const owned = ownBytes(bytes);
  // Bytes copied here are this job's alone: moved to the thread rather than copied again. The caller's own are
  // sent as a copy, and kept until the answer: the thread pool compresses them should the thread fail.
  const transfer = owned === bytes ? [] : [owned.buffer as ArrayBuffer];
  const piece = await send({ id: nextId++, kind: 'deflate', bytes: owned }, transfer);
  if (!piece) return deflatePieceBytesAsync(bytes, false);
  freeBytes(bytes);
  return deflated(piece);
}
