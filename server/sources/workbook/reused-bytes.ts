/**
 * The bytes of a replacement that are already in the file it replaces, so they come from a copy of that file
 * instead of being written again from memory: a write to a large workbook changes a few compressed pieces of one
 * sheet and leaves every other byte where it was. Where the file system clones (APFS, Btrfs, XFS) the copy shares
 * the file's blocks and only the changed bytes are written and flushed; on ext4 the kernel copies them
 * (copy_file_range), which at a million rows (60 MB) took the update's median from 199-215 to 183-186 ms on the
 * 2-core VM (docs/performance.md).
 *
 * What was written is remembered per path: where each chunk of the last replacement went, and the signature the
 * file was left with. A new replacement of the same path whose chunks include the very same chunk objects at the
 * very same offsets (an unchanged piece, a copied zip entry) may take those from the file, but only while the
 * file still has that signature (nobody else saved it since). Chunk objects are never changed once written
 * (chunked-deflate.ts: a new text makes a new piece), and the map holds them weakly: remembering keeps no chunk alive.
 */

/** Below this many reusable bytes a plain write is as fast. */
const REUSE_FROM_BYTES = 4 * 2 ** 20;

/** One replacement of a path: the signature it left the file with. */
interface WrittenLayout {
  signature: string;
}

/** Where a chunk was last written: by which replacement, at which offset (-1: at more than one). */
interface Place {
  layout: WrittenLayout;
  offset: number;
}

const layouts = new Map<string, WrittenLayout>();

/**
 * Each chunk's last place, kept on its own entry from write to write: a write to a large sheet leaves most chunks
 * as they were, and a new map of a few thousand weak entries for every write cost about 4 ms at a million rows.
 */
const places = new WeakMap<Uint8Array, Place>();

/** Replacements made from a copy of the file, and the bytes those copies gave (performance notes and tests). */
const totals = { copies: 0, reusedBytes: 0 };

export function reuseTotals(): Readonly<typeof totals> {
  return { ...totals };
}

/** A run of chunks to write at `position` of a copy of the file. */
export interface WriteRun {
  position: number;
  chunks: Uint8Array[];
}

/** How to make the replacement: copy the current file, then write these runs over it and cut it to `size`. */
export interface ReusePlan {
  runs: WriteRun[];
  size: number;
  /** Bytes the copy provides (not written again). */
  reused: number;
}

/**
 * The plan for replacing the file at `filePath`, currently of `signature`, by `chunks`; null when too little of
 * it is in the file (or nothing is known of it), and the chunks are written whole.
 */
export function reusePlan(
  filePath: string,
  signature: string,
  chunks: readonly Uint8Array[],
): ReusePlan | null {
  const layout = layouts.get(filePath);
  if (layout?.signature !== signature) return null;
  const runs: WriteRun[] = [];
  let offset = 0;
  let reused = 0;
  let runEnd = -1; // where the last run ends
  for (const chunk of chunks) {
    if (chunk.byteLength === 0) continue;
    const place = places.get(chunk);
    if (place?.layout === layout && place.offset === offset) reused += chunk.byteLength;
    else {
      if (runEnd === offset) runs.at(-1)?.chunks.push(chunk);
      else runs.push({ position: offset, chunks: [chunk] });
      runEnd = offset + chunk.byteLength;
    }
    offset += chunk.byteLength;
  }
  return reused < REUSE_FROM_BYTES ? null : { runs, size: offset, reused };
}

/** A replacement was made from a copy by `plan` (counted in `reuseTotals`). */
export function noteReused(plan: ReusePlan): void {
  totals.copies++;
  totals.reusedBytes += plan.reused;
}

/** The file at `filePath` now holds `chunks` back to back and has `signature`. */
export function rememberWritten(filePath: string, signature: string, chunks: readonly Uint8Array[]): void {
  const layout: WrittenLayout = { signature };
  let offset = 0;
  for (const chunk of chunks) {
    const place = places.get(chunk);
    if (place === undefined) places.set(chunk, { layout, offset });
    // A chunk object written twice has no one place: neither is reused.
    else if (place.layout === layout) place.offset = -1;
    else {
      // Last written by an earlier replacement (of this path or another): its place is here now.
      place.layout = layout;
      place.offset = offset;
    }
    offset += chunk.byteLength;
  }
  layouts.set(filePath, layout);
}

/** What was remembered of the file is no longer true (a write failed midway, or the file is gone). */
export function forgetWritten(filePath: string): void {
  layouts.delete(filePath);
}
