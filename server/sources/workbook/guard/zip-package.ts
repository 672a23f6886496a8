/**
 * Checks on a zip-packaged workbook (.xlsx) before any parser sees it, cheap (magic bytes and the central
 * directory) and run on the main thread, so a bomb or a wrong file is refused in microseconds. A package whose
 * headers lie cannot inflate past them either: every part is inflated with its declared size as a hard cap
 * (ooxml/zip-archive.ts), and only the parts a tab needs are inflated at all.
 */
import { megabytes, unreadable } from './unreadable.ts';
import { readZipDirectory, type ZipEntry, ZipFormatError } from './zip-directory.ts';

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP_MAGICS = [Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('PK\x05\x06', 'latin1')];
const STORED = 0;
const DEFLATED = 8;

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
export function checkZipPackage(bytes: Uint8Array, filePath: string, maxInflatedBytes: number): ZipEntry[] {
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
    entries = readZipDirectory(bytes);
  } catch (e) {
    if (e instanceof ZipFormatError) throw damaged(filePath);
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
  const inflated = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (inflated > maxInflatedBytes) {
    throw unreadable(
      'too_large',
      filePath,
      `unpacks to ${megabytes(inflated)}, over the ${megabytes(maxInflatedBytes)} limit (SHEETPORT_MAX_INFLATED_MB).`,
    );
  }
  return entries;
}
