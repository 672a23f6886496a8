/**
 * The sizes a zip package's directory declares, held against what a real workbook reaches, so a zip bomb is
 * refused from the directory alone, before anything is unpacked. What the directory declares is also what
 * unpacking is held to: every part is inflated with its declared size as a hard cap (ooxml/zip-archive.ts), so
 * a directory that lies stops the inflation at the size it claimed, and these checks bound the real work too.
 *
 * - the total unpacked size, within what the parse memory holds (`maxInflatedBytes`);
 * - each part's ratio of unpacked to packed size (`maxPartRatio`), past a small allowance: real parts pack a
 *   few to a few dozen times smaller, a bomb about a thousand times;
 * - each XML part within the longest text the reader can hold, since it reads a part as one text;
 * - no two parts sharing their packed bytes (a bomb that points every entry at the same data).
 */
import { constants } from 'node:buffer';
import type { FileLimits } from '../../../config.ts';
import { megabytes, unreadable } from './unreadable.ts';
import type { ZipEntry } from './zip-directory.ts';

export type ZipSizeLimits = Pick<FileLimits, 'maxInflatedBytes' | 'maxPartRatio'>;

/**
 * Parts that unpack to this much or less are not held to the ratio: they cost little whatever it is (one
 * 32,767-character cell of a repeated character packs 500 times smaller), and the total still bounds them.
 */
export const RATIO_ALLOWANCE_BYTES = 16 * 1024 * 1024;

/** The longest text a part can be read as: V8's longest string, in UTF-16 units (a UTF-8 byte makes at most one). */
export const MAX_PART_TEXT_BYTES = constants.MAX_STRING_LENGTH;

/** The fixed part of a local file header: every entry's packed data starts at least this far past its offset. */
const LOCAL_HEADER_BYTES = 30;

const isTextPart = (name: string) => /\.(xml|rels)$/i.test(name);

export function checkZipSizes(entries: readonly ZipEntry[], filePath: string, limits: ZipSizeLimits): void {
  const inflated = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (inflated > limits.maxInflatedBytes) {
    throw unreadable(
      'too_large',
      filePath,
      `unpacks to ${megabytes(inflated)}, over the ${megabytes(limits.maxInflatedBytes)} limit (SHEETPORT_MAX_INFLATED_MB).`,
    );
  }
  for (const entry of entries) {
    const size = entry.uncompressedSize;
    if (size > RATIO_ALLOWANCE_BYTES && size > limits.maxPartRatio * entry.compressedSize) {
      const times = entry.compressedSize > 0 ? Math.round(size / entry.compressedSize) : size;
      throw unreadable(
        'too_large',
        filePath,
        `holds a part that unpacks to ${megabytes(size)}, ${times} times its packed size, over the limit of ${limits.maxPartRatio} (a zip bomb; SHEETPORT_MAX_ZIP_RATIO).`,
      );
    }
    if (isTextPart(entry.name) && size > MAX_PART_TEXT_BYTES) {
      throw unreadable(
        'too_large',
        filePath,
        `holds a part that unpacks to ${megabytes(size)}, over the ${megabytes(MAX_PART_TEXT_BYTES)} one part can be read as; split its largest sheet into several.`,
      );
    }
  }
  if (sharesPackedData(entries)) {
    throw unreadable(
      'too_large',
      filePath,
      'has parts that share their packed data (a zip bomb); it is not read.',
    );
  }
}

/** Whether any two entries' packed data overlap: each entry's header and data must end before the next begins. */
function sharesPackedData(entries: readonly ZipEntry[]): boolean {
  const byOffset = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 1; i < byOffset.length; i++) {
    const before = byOffset[i - 1]!;
    const end = before.localHeaderOffset + LOCAL_HEADER_BYTES + before.compressedSize;
    if (end > byOffset[i]!.localHeaderOffset) return true;
  }
  return false;
}
