/**
 * Checks on a zip-packaged workbook (.xlsx) before any parser sees it, cheap (magic bytes and the central
 * directory) and run on the main thread, so a bomb or a wrong file is refused in microseconds. A package whose
 * headers lie cannot inflate past them either: every part is inflated with its declared size as a hard cap
 * (ooxml/zip-archive.ts), and only the parts a tab needs are inflated at all. The sizes themselves are held to
 * what real workbooks reach in zip-sizes.ts.
 */
import { unreadable } from './unreadable.ts';
import { readZipDirectory, TooManyEntries, type ZipEntry, ZipFormatError } from './zip-directory.ts';
import { checkZipSizes, type ZipSizeLimits } from './zip-sizes.ts';

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
/** How a zip's first part begins: the first bytes any zip writer puts in a file. */
export const ZIP_LOCAL_HEADER = Buffer.from('PK\x03\x04', 'latin1');
const ZIP_MAGICS = [ZIP_LOCAL_HEADER, Buffer.from('PK\x05\x06', 'latin1')];
const STORED = 0;
const DEFLATED = 8;
/**
 * A workbook holds a few parts per sheet (the sheet, its relationships, a drawing, comments); 100,000 is
 * thousands of sheets with all of those, and reading that many directory records takes tens of milliseconds.
 */
export const MAX_ZIP_ENTRIES = 100_000;

function startsWith(bytes: Uint8Array, magic: Buffer): boolean {
  return bytes.length >= magic.length && magic.equals(bytes.subarray(0, magic.length));
}

const damaged = (filePath: string) =>
  unreadable(
    'corrupt',
    filePath,
    'is damaged (cut short or corrupt) and cannot be read; save it again from Excel.',
  );

/** Refuses what is not a readable, reasonably sized .xlsx package; returns its parts. */
export function checkZipPackage(bytes: Uint8Array, filePath: string, limits: ZipSizeLimits): ZipEntry[] {
  if (startsWith(bytes, CFB_MAGIC)) {
    // Office encrypts an .xlsx by wrapping it in a Compound File; old .xls files are one too.
    throw unreadable(
      'encrypted',
      filePath,
      'is password-protected (encrypted) or an old binary Excel file; save it from Excel as an unprotected .xlsx.',
    );
  }
  if (!ZIP_MAGICS.some((magic) => startsWith(bytes, magic))) {
    throw unreadable(
      'not_a_workbook',
      filePath,
      'is not an Excel workbook (an .xlsx file is a zip package).',
    );
  }
  let entries: ZipEntry[];
  try {
    entries = readZipDirectory(bytes, MAX_ZIP_ENTRIES);
  } catch (e) {
    if (e instanceof ZipFormatError) throw damaged(filePath);
    if (e instanceof TooManyEntries) {
      throw unreadable(
        'too_large',
        filePath,
        `holds ${e.count} parts, over the limit of ${MAX_ZIP_ENTRIES} (a zip bomb); it is not read.`,
      );
    }
    throw e;
  }
  if (!entries.some((entry) => entry.name === '[Content_Types].xml')) {
    throw unreadable('not_a_workbook', filePath, 'is a zip file but not an Excel workbook.');
  }
  if (entries.some((entry) => entry.encrypted)) {
    throw unreadable('encrypted', filePath, 'has encrypted parts; save it from Excel without a password.');
  }
  if (entries.some((entry) => entry.method !== STORED && entry.method !== DEFLATED)) {
    throw unreadable(
      'corrupt',
      filePath,
      'uses a zip compression method that spreadsheet programs do not write.',
    );
  }
  checkZipSizes(entries, filePath, limits);
  return entries;
}
