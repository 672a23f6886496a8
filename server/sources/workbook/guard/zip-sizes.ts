/**
 * The sizes a zip package's directory declares, held against what a real workbook reaches, so a zip bomb is
 * refused from the directory alone, before anything is unpacked. What the directory declares is also what
 * unpacking is held to: every part is inflated with its declared size as a hard cap (ooxml/zip-archive.ts), so
 * a directory that lies stops the inflation at the size it claimed, and these checks bound the real work too.
 *
 * - the total unpacked size, within what the parse memory holds (`maxInflatedBytes`);
 * - each part's ratio of unpacked to packed size (`maxPartRatio`), past one small allowance for the whole
 *   package: real parts pack a few to a few dozen times smaller, a bomb about a thousand times;
 * - each XML part but a worksheet within the longest text the reader can hold (every other part is read as one
 *   text). A worksheet is scanned from its bytes as it inflates, whatever its size (openpyxl writes Excel's
 *   largest sheet of ten columns as 545 MB of XML); only one the fast scanner leaves to the full XML parser is
 *   read as one text, and is refused then (`partTooLongForText`);
 * - no two parts sharing their packed bytes (a bomb that points every entry at the same data).
 */
import { constants } from 'node:buffer';
import type { FileLimits } from '../../../config.ts';
import { AppError } from '../../../errors.ts';
import { megabytes, unreadable } from './unreadable.ts';
import type { ZipEntry } from './zip-directory.ts';

export type ZipSizeLimits = Pick<FileLimits, 'maxInflatedBytes' | 'maxPartRatio'>;

/**
 * What the parts of a package may unpack to past the ratio, all of them together: a little costs little whatever
 * its ratio (one 32,767-character cell of a repeated character packs 500 times smaller), and being one allowance
 * for the whole package, not one a part, a bomb cannot be spread over many parts that each pass for small.
 */
export const RATIO_ALLOWANCE_BYTES = 16 * 1024 * 1024;

/** The longest text a part can be read as: V8's longest string, in UTF-16 units (a UTF-8 byte makes at most one). */
export const MAX_PART_TEXT_BYTES = constants.MAX_STRING_LENGTH;

/** The fixed part of a local file header: every entry's packed data starts at least this far past its offset. */
const LOCAL_HEADER_BYTES = 30;

const isTextPart = (name: string) => /\.(xml|rels)$/i.test(name);
/** Where Excel and every other writer put worksheets: parts scanned from their bytes, never read as one text. */
const isWorksheet = (name: string) => /^xl\/worksheets\/[^/]+\.xml$/i.test(name);

/**
 * A part that would have to be read as one text and is longer than any text can be: said when it is about to be
 * (ooxml/zip-archive.ts), for a worksheet the fast scanner could not read.
 */
export function partTooLongForText(name: string, size: number): AppError {
  return new AppError(
    'upstream_error',
    `Could not read workbook: its part "${name}" unpacks to ${megabytes(size)}, and this part can only be read whole (its XML holds what the fast reader does not take, such as a comment among the rows or rows out of order), which works up to ${megabytes(MAX_PART_TEXT_BYTES)}; save the file again from your spreadsheet program, or split its largest sheet into several.`,
    { reason: 'too_large' },
  );
}

export function checkZipSizes(entries: readonly ZipEntry[], filePath: string, limits: ZipSizeLimits): void {
  const inflated = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (inflated > limits.maxInflatedBytes) {
    throw unreadable(
      'too_large',
      filePath,
      `unpacks to ${megabytes(inflated)}, over the ${megabytes(limits.maxInflatedBytes)} limit (SHEETPORT_MAX_INFLATED_MB).`,
    );
  }
  checkRatio(entries, filePath, limits.maxPartRatio);
  for (const entry of entries) {
    const size = entry.uncompressedSize;
    if (isTextPart(entry.name) && !isWorksheet(entry.name) && size > MAX_PART_TEXT_BYTES) {
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

/**
 * The parts together unpack to at most `maxRatio` times their packed size plus the allowance: the bytes each part
 * unpacks to past its own share are summed over the package. The message names the part that goes furthest past
 * its share when it alone is over, else the parts that are.
 */
function checkRatio(entries: readonly ZipEntry[], filePath: string, maxRatio: number): void {
  const over = entries.filter((entry) => entry.uncompressedSize > maxRatio * entry.compressedSize);
  const excess = (entry: ZipEntry) => entry.uncompressedSize - maxRatio * entry.compressedSize;
  if (over.reduce((sum, entry) => sum + excess(entry), 0) <= RATIO_ALLOWANCE_BYTES) return;
  const worst = over.reduce((a, b) => (excess(b) > excess(a) ? b : a));
  const alone = excess(worst) > RATIO_ALLOWANCE_BYTES;
  const size = alone ? worst.uncompressedSize : over.reduce((sum, e) => sum + e.uncompressedSize, 0);
  const packed = alone ? worst.compressedSize : over.reduce((sum, e) => sum + e.compressedSize, 0);
  const times = packed > 0 ? Math.round(size / packed) : size;
  const what = alone ? 'a part that unpacks' : `${over.length} parts that unpack`;
  throw unreadable(
    'too_large',
    filePath,
    `holds ${what} to ${megabytes(size)}, ${times} times ${alone ? 'its' : 'their'} packed size, over the limit of ${maxRatio} (a zip bomb; SHEETPORT_MAX_ZIP_RATIO).`,
  );
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
