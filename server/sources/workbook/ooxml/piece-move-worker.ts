/**
 * A piece-move thread (piece-move-pool.ts): moves the pieces it is sent (piece-move.ts) and sends each back,
 * its compressed bytes moved, not copied. Imports nothing but zlib and the byte renumbering, so it starts fast.
 */
import { parentPort } from 'node:worker_threads';
import { movePiece } from './piece-move.ts';

export interface PieceMoveJob {
  id: number;
  compressed: Uint8Array;
  crc: number;
  size: number;
  shift: number;
  rows: number;
}

export interface PieceMoveReply {
  id: number;
  /** Null: the text is not in the handled form (the caller moves it the general way). */
  moved: { compressed: Uint8Array; crc: number; size: number; growth: Int32Array } | null;
  error?: string;
}

/** Bytes in an ArrayBuffer of their own: a small Buffer lives in Node's shared pool, which cannot be moved. */
const own = (bytes: Uint8Array): Uint8Array =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);

parentPort?.on('message', (job: PieceMoveJob) => {
  let reply: PieceMoveReply;
  try {
    const compressed = Buffer.from(job.compressed.buffer, job.compressed.byteOffset, job.compressed.length);
    const moved = movePiece({ compressed, crc: job.crc, size: job.size }, job.shift, job.rows);
    reply = {
      id: job.id,
      moved: moved && { ...moved.piece, compressed: own(moved.piece.compressed), growth: moved.growth },
    };
  } catch (e) {
    reply = { id: job.id, moved: null, error: String(e) };
  }
  const transfer = reply.moved
    ? [reply.moved.compressed.buffer as ArrayBuffer, reply.moved.growth.buffer as ArrayBuffer]
    : [];
  parentPort?.postMessage(reply, transfer);
});
