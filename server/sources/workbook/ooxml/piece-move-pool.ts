/**
 * The threads that move pieces for a delete (piece-move.ts): a delete in the middle of a million rows
 * renumbers and recompresses about a thousand pieces, a couple of seconds of work that here runs on up to two
 * threads beside the service's own, which keeps answering. The threads start on the first delete that needs
 * them (their script imports only zlib and the renumbering: tens of milliseconds) and end when idle, so a
 * service that does not delete holds none. A thread that fails is replaced; its pieces answer null, and the
 * caller moves them the general way.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { unpackedUrl } from '../../../lib/archive-path.ts';
import type { DeflatedPiece } from './chunked-deflate.ts';
import type { MovedPiece } from './piece-move.ts';
import type { PieceMoveJob, PieceMoveReply } from './piece-move-worker.ts';

const WORKER_URL = unpackedUrl(
  new URL(`./piece-move-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);
/** Two threads at most: the machine's other cores, and the service's thread answering meanwhile. */
const THREADS = Math.max(1, Math.min(2, os.availableParallelism()));
/** Threads not asked for this long end, giving their memory back. */
const IDLE_MS = 10_000;

type Waiting = (moved: MovedPiece | null) => void;

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
  worker.on('message', (reply: PieceMoveReply) => {
    const done = thread.jobs.get(reply.id);
    thread.jobs.delete(reply.id);
    if (thread.jobs.size === 0) rest(thread);
    done?.(
      reply.moved && {
        piece: {
          compressed: Buffer.from(
            reply.moved.compressed.buffer,
            reply.moved.compressed.byteOffset,
            reply.moved.compressed.length,
          ),
          crc: reply.moved.crc,
          size: reply.moved.size,
        },
        growth: reply.moved.growth,
      },
    );
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

/** The thread with the fewest jobs, a new one while fewer than THREADS run. */
function pick(): Thread {
  const least = threads.reduce<Thread | undefined>(
    (best, thread) => (best === undefined || thread.jobs.size < best.jobs.size ? thread : best),
    undefined,
  );
  return least && (least.jobs.size === 0 || threads.length >= THREADS) ? least : start();
}

/** `movePiece` on a piece-move thread; null when the text is not in the handled form or the thread failed. */
export function movePieceOffThread(
  piece: DeflatedPiece,
  shift: number,
  rows: number,
): Promise<MovedPiece | null> {
  return new Promise((resolve) => {
    const thread = pick();
    const id = nextId++;
    thread.jobs.set(id, resolve);
    clearTimeout(thread.idle);
    thread.worker.ref();
    // A view into a larger buffer would send that whole buffer: its own bytes are sent instead.
    const bytes = piece.compressed;
    const compressed = bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    const job: PieceMoveJob = { id, compressed, crc: piece.crc, size: piece.size, shift, rows };
    thread.worker.postMessage(job);
  });
}
