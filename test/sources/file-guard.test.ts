/**
 * The file guard and the zip package checks on real files: what a connected path may be swapped for
 * (a FIFO, /dev/zero behind a symlink, a folder, a huge file) and what an .xlsx may really be (truncated,
 * not a zip, an encrypted Compound File, a bomb with honest or lying headers).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_FILE_LIMITS, resolveFileLimits } from '../../server/config.ts';
import type { AppError } from '../../server/errors.ts';
import { readRegularFile } from '../../server/sources/workbook/guard/read-regular-file.ts';
import { parserFailure } from '../../server/sources/workbook/guard/unreadable.ts';
import { checkZipPackage } from '../../server/sources/workbook/guard/zip-package.ts';
import { OoxmlDocument } from '../../server/sources/workbook/ooxml/ooxml-document.ts';
import { caught } from '../helpers/caught.ts';
import { writeZipBomb } from '../helpers/zip-bomb.ts';
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
});

describe('checking an .xlsx package', () => {
  const limit = DEFAULT_FILE_LIMITS.maxInflatedBytes;

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

  it('refuses a bomb by its declared size without inflating it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'bomb.xlsx');
    await writeZipBomb(file, { sheetMb: 400 });
    const bytes = await fs.readFile(file);
    expect(bytes.length).toBeLessThan(5 * MB);
    const started = performance.now();
    const error = caught(() => checkZipPackage(bytes, file, limit));
    expect(performance.now() - started).toBeLessThan(50);
    expect(error.details.reason).toBe('too_large');
    expect(error.message).toMatch(/^"bomb.xlsx" unpacks to 40\d MB, over the 300 MB limit/);
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
});
