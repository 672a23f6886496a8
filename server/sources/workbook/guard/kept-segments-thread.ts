/**
 * The kept-segments thread (kept-read.ts `readSegmentsOffThread`): reads a large kept read's segments from the file
 * the service's thread opened and checked the header of, checks them, and sends them back moved, not copied. One
 * job, then it ends; it imports only Node's fs and zlib.
 */
import { parentPort } from 'node:worker_threads';
import { readCheckedSegments, type SegmentLayout } from './kept-segments.ts';

export interface SegmentsJob {
  fd: number;
  layout: SegmentLayout;
}

/** Null: the file ended early, a CRC-32 differed, or the read failed. */
export interface SegmentsReply {
  segments: ArrayBuffer[] | null;
}

parentPort?.once('message', async (job: SegmentsJob) => {
  const segments = await readCheckedSegments(job.fd, job.layout).catch(() => null);
  const reply: SegmentsReply = { segments };
  parentPort?.postMessage(reply, segments ?? []);
});
