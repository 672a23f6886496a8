/**
 * A piece thread (piece-threads.ts): compresses the pieces of rows it is sent, or moves them (piece-move.ts:
 * renumbered in their bytes; piece-rewrite.ts: rewritten row by row for a delete), and sends each back, its
 * compressed bytes moved, not copied. Imports nothing but zlib and the rows' and formulas' text rules, so it
 * starts fast.
 */
import { parentPort } from 'node:worker_threads';
import { freeBytes } from '../../../lib/free-buffer.ts';
import { deflatePieceBytesOwned } from './chunked-deflate.ts';
import type { FormulaFacts } from './formula-reach.ts';
import { movePiece } from './piece-move.ts';
import { rewritePiece } from './piece-rewrite.ts';
import type { PortableRewrite } from './row-slots.ts';

export type PieceJob =
  /** Rows renumbered `shift` lower in a compressed piece of `rows` rows. */
  | {
      id: number;
      kind: 'move';
      compressed: Uint8Array;
      crc: number;
      size: number;
      shift: number;
      rows: number;
    }
  /** Rows' UTF-8 bytes compressed into a piece (not the part's last). */
  | { id: number; kind: 'deflate'; bytes: Uint8Array }
  /** A compressed piece's rows (`numbers`, `lengths`) through `rewrites`, in order. */
  | {
      id: number;
      kind: 'rewrite';
      compressed: Uint8Array;
      crc: number;
      size: number;
      numbers: Int32Array;
      lengths: Int32Array;
      rewrites: PortableRewrite[];
    };

export interface PieceReply {
  id: number;
  /** Null: the text is not in the handled form (the caller moves it the general way), or the job failed. */
  piece: {
    compressed: Uint8Array;
    crc: number;
    size: number;
    growth: Int32Array;
    /** A rewrite's rows: their numbers and lengths now, and what the new text says of its formulas. */
    rewritten?: { numbers: Int32Array; lengths: Int32Array; facts: FormulaFacts };
  } | null;
  error?: string;
}

/**
 * This thread's heap is tiny, so its collector seldom runs: the bytes of each job, once used, are given back at
 * once (lib/free-buffer.ts), or a sheet's thousands of pieces would hold tens of MB here until it does.
 */
function run(job: PieceJob): PieceReply['piece'] {
  // Compressed pieces own their buffers (deflatePieceBytesOwned), so they move to the service's thread whole.
  if (job.kind === 'deflate') {
    const piece = deflatePieceBytesOwned(job.bytes, false);
    freeBytes(job.bytes);
    return { ...piece, growth: new Int32Array(0) };
  }
  const compressed = Buffer.from(job.compressed.buffer, job.compressed.byteOffset, job.compressed.length);
  if (job.kind === 'rewrite') {
    const { piece, numbers, lengths, facts } = rewritePiece(
      { compressed, crc: job.crc, size: job.size },
      job.numbers,
      job.lengths,
      job.rewrites,
    );
    freeBytes(job.compressed);
    return { ...piece, growth: new Int32Array(0), rewritten: { numbers, lengths, facts } };
  }
  const moved = movePiece({ compressed, crc: job.crc, size: job.size }, job.shift, job.rows);
  freeBytes(job.compressed);
  return moved && { ...moved.piece, growth: moved.growth };
}

parentPort?.on('message', (job: PieceJob) => {
  let reply: PieceReply;
  try {
    reply = { id: job.id, piece: run(job) };
  } catch (e) {
    reply = { id: job.id, piece: null, error: String(e) };
  }
  const transfer = reply.piece
    ? [reply.piece.compressed.buffer as ArrayBuffer, reply.piece.growth.buffer as ArrayBuffer]
    : [];
  parentPort?.postMessage(reply, transfer);
});
