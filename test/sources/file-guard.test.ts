/**
 * The file guard and the zip package checks on real files: what a connected path may be swapped for
 * (a FIFO, /dev/zero behind a symlink, a folder, a huge file) and what an .xlsx may really be (truncated,
 * not a zip, an encrypted Compound File, a bomb with honest or lying headers).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_FILE_LIMITS, resolveFileLimits } from '../../server/config.ts';
import type { AppError } from '../../server/errors.ts';
import {
  MAX_TEXT_FILE_BYTES,
  readRegularFile,
  signatureRefused,
} from '../../server/sources/workbook/guard/read-regular-file.ts';
import { parserFailure } from '../../server/sources/workbook/guard/unreadable.ts';
import { checkZipPackage, MAX_ZIP_ENTRIES } from '../../server/sources/workbook/guard/zip-package.ts';
import { checkZipSizes } from '../../server/sources/workbook/guard/zip-sizes.ts';
import { OoxmlDocument } from '../../server/sources/workbook/ooxml/ooxml-document.ts';
import { caught } from '../helpers/caught.ts';
import {
  writeManyParts,
  writeManySheetsBomb,
  writeSharedStringsBomb,
  writeZipBomb,
} from '../helpers/zip-bomb.ts';
import { rejection, removeTempDirs, tempDir } from './workbook/helpers.ts';

afterAll(removeTempDirs);

const MB = 1024 * 1024;

async function smallWorkbook(file: string): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('S').addRow(['a', 'b']);
  await wb.xlsx.writeFile(file);
  return fs.readFile(file);
}

describe('reading a connected path', () => {
  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const dir = await tempDir();
    const fifo = path.join(dir, 'orders.xlsx');
    execFileSync('mkfifo', [fifo]);
    const started = performance.now();
    // More reads than the thread pool has threads: a blocking open would hang the fifth for ever.
    const errors = await Promise.all(Array.from({ length: 8 }, () => rejection(readRegularFile(fifo, MB))));
    expect(performance.now() - started).toBeLessThan(2000);
    for (const error of errors) {
      expect(error.code).toBe('upstream_error');
      expect(error.details.reason).toBe('not_a_file');
      expect(error.message).not.toContain(dir);
    }
  });

  it('refuses a symlink to /dev/zero and a folder', async () => {
    const dir = await tempDir();
    const zero = path.join(dir, 'zero.xlsx');
    await fs.symlink('/dev/zero', zero);
    expect((await rejection(readRegularFile(zero, MB))).details.reason).toBe('not_a_file');
    const folder = path.join(dir, 'folder.csv');
    await fs.mkdir(folder);
    expect((await rejection(readRegularFile(folder, MB))).details.reason).toBe('not_a_file');
  });

  it('refuses a CSV longer than one text can hold, whatever the file limit, before reading it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'huge.csv');
    // A sparse file: its size is what counts, and it takes no room on disk.
    await fs.writeFile(file, '');
    await fs.truncate(file, MAX_TEXT_FILE_BYTES + 1);
    const error = await rejection(readRegularFile(file, 1024 * MB, true));
    // Over the file limit too, it is named by the limit no setting raises.
    expect((await rejection(readRegularFile(file, MB, true))).message).toBe(error.message);
    expect(error.details.reason).toBe('too_large');
    expect(error.message).toBe(
      '"huge.csv" is 512 MB, over the 512 MB a CSV file can be read as (one text); split it into several files.',
    );
  });

  it('refuses a file over the size limit before reading it, and reads one within it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'big.csv');
    await fs.writeFile(file, 'x'.repeat(2 * MB));
    const error = await rejection(readRegularFile(file, MB));
    expect(error.details.reason).toBe('too_large');
    expect(error.message).toMatch(/^"big.csv" is 2 MB, over the 1 MB limit/);
    const { bytes, signature } = await readRegularFile(file, 3 * MB);
    expect(bytes.length).toBe(2 * MB);
    const st = await fs.stat(file);
    expect(signature).toBe(`${st.mtimeMs}:${st.size}:${st.ino}`);
  });

  it('names the version of the file a refusal saw, and none when nothing of the file was seen', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'big.csv');
    await fs.writeFile(file, 'x'.repeat(2 * MB));
    const seen = await fs.stat(file);
    const refused = await rejection(readRegularFile(file, MB));
    // Saved again after the refusal: the refusal is still about the version it saw.
    await fs.writeFile(file, 'y'.repeat(3 * MB));
    expect(signatureRefused(refused)).toBe(`${seen.mtimeMs}:${seen.size}:${seen.ino}`);
    const missing = await rejection(readRegularFile(path.join(dir, 'missing.csv'), MB));
    expect(signatureRefused(missing)).toBeNull();
  });
});

describe('checking an .xlsx package', () => {
  const limit = DEFAULT_FILE_LIMITS;

  it('accepts a real workbook', async () => {
    const dir = await tempDir();
    const bytes = await smallWorkbook(path.join(dir, 'ok.xlsx'));
    const entries = checkZipPackage(bytes, 'ok.xlsx', limit);
    expect(entries.map((e) => e.name)).toContain('xl/workbook.xml');
    expect((await OoxmlDocument.parse(bytes)).tabs()[0]?.header.length).toBeGreaterThan(0);
  });

  it('names truncated, non-zip, encrypted and foreign-zip files by reason, in its own words', async () => {
    const dir = await tempDir();
    const bytes = await smallWorkbook(path.join(dir, 'ok.xlsx'));
    const cases: [string, Uint8Array, string][] = [
      ['cut.xlsx', bytes.subarray(0, Math.floor(bytes.length * 0.6)), 'corrupt'],
      ['text.xlsx', Buffer.from('Order ID,Total\n1,2\n'), 'not_a_workbook'],
      ['empty.xlsx', Buffer.alloc(0), 'not_a_workbook'],
      ['locked.xlsx', Buffer.from('d0cf11e0a1b11ae1000000000000000000000000', 'hex'), 'encrypted'],
    ];
    for (const [name, content, reason] of cases) {
      const error = caught(() => checkZipPackage(content, path.join(dir, name), limit));
      expect(error.details.reason, name).toBe(reason);
      expect(error.message, name).toMatch(new RegExp(`^"${name.replace('.', '\\.')}" `));
      expect(error.message, name).not.toMatch(/https?:|jszip|central directory|\//i);
    }
  });

  it('refuses a bomb by its ratio of unpacked to packed size without inflating it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'bomb.xlsx');
    await writeZipBomb(file, { sheetMb: 400 });
    const bytes = await fs.readFile(file);
    expect(bytes.length).toBeLessThan(5 * MB);
    const error = caught(() => checkZipPackage(bytes, file, limit));
    expect(error.details.reason).toBe('too_large');
    expect(error.message).toMatch(
      /^"bomb.xlsx" holds a part that unpacks to 400 MB, \d+ times its packed size, over the limit of 200 \(a zip bomb; SHEETPORT_MAX_ZIP_RATIO\)\.$/,
    );
  });

  it('refuses a bomb in the shared strings the same way, and one whose directory lies at its declared size', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'strings.xlsx');
    await writeSharedStringsBomb(file, { mb: 300 });
    const error = caught(() => checkZipPackage(readFileSync(file), file, limit));
    expect(error.details.reason).toBe('too_large');
    expect(error.message).toMatch(
      /^"strings.xlsx" holds a part that unpacks to 300 MB, \d+ times its packed size/,
    );

    const liar = path.join(dir, 'liar.xlsx');
    await writeSharedStringsBomb(liar, { mb: 300, declaredBytes: 2000 });
    const bytes = await fs.readFile(liar);
    checkZipPackage(bytes, liar, limit); // the directory alone looks harmless
    const before = process.memoryUsage().rss;
    let failure: unknown;
    try {
      (await OoxmlDocument.parse(bytes)).tabs();
    } catch (e) {
      failure = parserFailure(e, liar);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * MB);
    expect((failure as AppError).details.reason).toBe('too_large');
    expect((failure as AppError).message).toMatch(/zip bomb/);
  });

  it('refuses a bomb spread over parts that each unpack to little, by their ratio together', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'spread.xlsx');
    // 12 sheets of 15 MB, each packed 400 times smaller: each part alone within the allowance, not together.
    await writeManySheetsBomb(file, { sheets: 12, sheetMb: 15, kind: 'copies' });
    const error = caught(() => checkZipPackage(readFileSync(file), file, limit));
    expect(error.details.reason).toBe('too_large');
    expect(error.message).toMatch(
      /^"spread.xlsx" holds 12 parts that unpack to 180 MB, \d+ times their packed size, over the limit of 200 \(a zip bomb; SHEETPORT_MAX_ZIP_RATIO\)\.$/,
    );
    // A few small parts that pack far better than 200:1 (one 32,767-character cell of one repeated character,
    // twice) are read.
    const dense = path.join(dir, 'dense.xlsx');
    await writeSharedStringsBomb(dense, { mb: 1 });
    checkZipPackage(readFileSync(dense), dense, limit);
  });

  it('refuses a package whose parts share their packed data, and one of too many parts, from the directory', async () => {
    const dir = await tempDir();
    const overlapping = path.join(dir, 'overlap.xlsx');
    // 40 sheets of 15 MB each: every part within the ratio and the total, all of them the same packed bytes.
    await writeManySheetsBomb(overlapping, { sheets: 40, sheetMb: 15, kind: 'overlapping' });
    const shared = caught(() => checkZipPackage(readFileSync(overlapping), overlapping, limit));
    expect(shared.details.reason).toBe('too_large');
    expect(shared.message).toBe(
      '"overlap.xlsx" has parts that share their packed data (a zip bomb); it is not read.',
    );

    const many = path.join(dir, 'many.xlsx');
    writeManyParts(many, MAX_ZIP_ENTRIES);
    const count = caught(() => checkZipPackage(readFileSync(many), many, limit));
    expect(count.details.reason).toBe('too_large');
    expect(count.message).toMatch(
      /^"many.xlsx" holds 100\d\d\d parts, over the limit of 100000 \(a zip bomb\)/,
    );
  });

  it('refuses a package over the total unpacked limit, and a part too long to be read as text', () => {
    const entry = (name: string, uncompressedSize: number, at: number) => ({
      name,
      method: 8,
      encrypted: false,
      compressedSize: Math.ceil(uncompressedSize / 10),
      uncompressedSize,
      localHeaderOffset: at,
    });
    const parts = [
      entry('xl/worksheets/sheet1.xml', 400 * MB, 0),
      entry('xl/worksheets/sheet2.xml', 400 * MB, 50 * MB),
    ];
    const total = caught(() => checkZipSizes(parts, 'big.xlsx', { ...limit, maxInflatedBytes: 700 * MB }));
    expect(total.message).toBe(
      '"big.xlsx" unpacks to 800 MB, over the 700 MB limit (SHEETPORT_MAX_INFLATED_MB).',
    );
    const long = caught(() =>
      checkZipSizes([entry('xl/sharedStrings.xml', 600 * MB, 0)], 'long.xlsx', limit),
    );
    expect(long.details.reason).toBe('too_large');
    expect(long.message).toMatch(
      /^"long.xlsx" holds a part that unpacks to 600 MB, over the 512 MB one part can be read as/,
    );
    // The same size in a part that is never read as text (an embedded video, say) is only counted, as in a
    // worksheet, which is scanned as it inflates (refused later only if it must be read as one text).
    checkZipSizes([entry('xl/media/video1.bin', 600 * MB, 0)], 'media.xlsx', limit);
    checkZipSizes([entry('xl/worksheets/sheet1.xml', 600 * MB, 0)], 'tall.xlsx', limit);
  });

  it('refuses a bomb whose headers lie, inflating no further than the declared size', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'liar.xlsx');
    await writeZipBomb(file, { sheetMb: 400, declaredSheetBytes: 1000 });
    const bytes = await fs.readFile(file);
    checkZipPackage(bytes, file, limit); // the directory alone looks harmless
    const before = process.memoryUsage().rss;
    const started = performance.now();
    let error: unknown;
    try {
      (await OoxmlDocument.parse(bytes)).tabs();
    } catch (e) {
      error = parserFailure(e, file);
    }
    expect(performance.now() - started).toBeLessThan(500);
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * MB);
    expect((error as AppError).details.reason).toBe('too_large');
    expect((error as AppError).message).toMatch(/zip bomb/);
  });

  it('reads its limits from the environment, in MB', () => {
    const limits = resolveFileLimits(
      { parseTimeoutMs: 1234 },
      { SHEETPORT_MAX_FILE_MB: '5', SHEETPORT_MAX_INFLATED_MB: 'lots', SHEETPORT_PARSE_TIMEOUT_MS: '99' },
    );
    expect(limits).toEqual({ ...DEFAULT_FILE_LIMITS, maxFileBytes: 5 * MB, parseTimeoutMs: 1234 });
  });

  it('derives the cells, text and unpacked size from the parse memory, unless each is set', () => {
    const doubled = resolveFileLimits(
      {},
      { SHEETPORT_PARSE_MEMORY_MB: '8192', SHEETPORT_MAX_ZIP_RATIO: '500' },
    );
    expect(doubled).toEqual({
      ...DEFAULT_FILE_LIMITS,
      parseMemoryMb: 8192,
      maxPartRatio: 500,
      maxCells: 2 * DEFAULT_FILE_LIMITS.maxCells,
      maxTextChars: 2 * DEFAULT_FILE_LIMITS.maxTextChars,
      maxInflatedBytes: 2 * DEFAULT_FILE_LIMITS.maxInflatedBytes,
    });
    const set = resolveFileLimits({}, { SHEETPORT_PARSE_MEMORY_MB: '8192', SHEETPORT_MAX_CELLS: '1000' });
    expect(set.maxCells).toBe(1000);
    expect(set.maxTextChars).toBe(2 * DEFAULT_FILE_LIMITS.maxTextChars);
    // Excel's 1,048,576 rows fit by default, 32 columns of them.
    expect(DEFAULT_FILE_LIMITS.maxCells).toBe(1_048_576 * 32);
  });
});
