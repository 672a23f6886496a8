/**
 * A kept read's segments read back and checked (kept-read.ts): each into an ArrayBuffer of its own, the one the
 * payload then takes over, and each against its CRC-32. Read with `readv` a few megabytes a call, so a sheet's
 * thousands of small segments cost a few calls and no copy (one read per segment cost a million-row form about a
 * second of round trips; reading runs then copying each segment out cost its 68 MB twice in fresh memory, about
 * 3 ms a megabyte of page faults on a small VM). Each call's bytes are checked while the thread pool reads the
 * next: at a million rows, reading the kept 128 MB takes about 375 ms and their CRCs about 200 ms, now side by side.
 */
import { readv } from 'node:fs';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';

/** Where each segment is in the kept file, and the CRC-32 it was kept with. */
export interface SegmentLayout {
  offsets: readonly number[];
  lengths: readonly number[];
  crcs: readonly number[];
}

/** Bytes and buffers a `readv` call takes at most (Linux takes 1,024 buffers a call). */
const CALL_BYTES = 4 * 1024 * 1024;
const CALL_BUFFERS = 512;
/** Segments start at multiples of 8: the bytes between two are read into this and dropped. */
const PADDING = Buffer.alloc(8);

const readvAt = promisify(readv);

/** One `readv`: its place in the file, its buffers, and which segment each of them (but the padding) is part of. */
interface Call {
  from: number;
  buffers: Uint8Array[];
  parts: { segment: number; bytes: Uint8Array }[];
  bytes: number;
}

/** The calls that read `layout`'s segments into `segments`, in the file's order; null when the layout is not one. */
function callsFor(layout: SegmentLayout, segments: readonly Uint8Array[]): Call[] | null {
  const { offsets, lengths } = layout;
  const calls: Call[] = [];
  let call: Call | null = null;
  for (let i = 0; i < lengths.length; i++) {
    const offset = offsets[i] as number;
    const gap = call ? offset - (call.from + call.bytes) : 0;
    if (gap < 0 || gap >= PADDING.length) return null;
    if (call && gap > 0) {
      call.buffers.push(PADDING.subarray(0, gap));
      call.bytes += gap;
    }
    const segment = segments[i] as Uint8Array;
    // An empty segment has nothing to read (its CRC is that of no bytes: 0).
    for (let at = 0; at < segment.length; ) {
      if (!call || call.bytes >= CALL_BYTES || call.buffers.length >= CALL_BUFFERS - 1) {
        call = { from: offset + at, buffers: [], parts: [], bytes: 0 };
        calls.push(call);
      }
      const bytes = segment.subarray(at, at + (CALL_BYTES - call.bytes));
      call.buffers.push(bytes);
      call.parts.push({ segment: i, bytes });
      call.bytes += bytes.length;
      at += bytes.length;
    }
  }
  return calls;
}

/**
 * The segments of `layout` read from the open file `fd`, or null when the file ends early or a segment's CRC-32 is
 * not the one it was kept with.
 */
export async function readCheckedSegments(fd: number, layout: SegmentLayout): Promise<ArrayBuffer[] | null> {
  // Not zeroed first: every byte of each is read next.
  const segments = layout.lengths.map((length) => Buffer.allocUnsafeSlow(length));
  const calls = callsFor(layout, segments);
  if (!calls) return null;
  const read = (call: Call) =>
    readvAt(fd, call.buffers, call.from).then(({ bytesRead }) => bytesRead === call.bytes);
  const crcs = new Array<number>(segments.length).fill(0);
  let next = calls.length > 0 ? read(calls[0] as Call) : null;
  for (let i = 0; i < calls.length; i++) {
    if (!(await next)) return null;
    next = i + 1 < calls.length ? read(calls[i + 1] as Call) : null;
    for (const { segment, bytes } of (calls[i] as Call).parts)
      crcs[segment] = crc32(bytes, crcs[segment] as number);
  }
  if (crcs.some((crc, i) => crc !== layout.crcs[i])) return null;
  return segments.map((segment) => segment.buffer as ArrayBuffer);
}
