/**
 * Excel's tallest sheet connects and serves with the default file limits, through real HTTP: 1,048,575 data
 * rows by 10 columns as an .xlsx (past the cell and unpacked-size limits this service once had) and as a CSV of
 * the same rows (past the file-size limit it once had). The files are made in the test (test/helpers/
 * tall-sheet.ts); their cells say where they are, so the last row read back is checked exactly.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readZipDirectory } from '../../../server/sources/workbook/guard/zip-directory.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import {
  EXCEL_DATA_ROWS,
  tallCell,
  tallColumns,
  writeTallCsv,
  writeTallXlsx,
} from '../../helpers/tall-sheet.ts';

const MB = 1024 * 1024;
const COLUMNS = 10;

/** The last data row as the API answers it. */
const lastRow = () =>
  Object.fromEntries(tallColumns(COLUMNS).map((name, i) => [name, tallCell(EXCEL_DATA_ROWS, i + 1)]));

async function readLastRow(h: Harness, file: string, tab: string) {
  const connection = await h.connect(file);
  const res = await h.fetch(rowsPath(connection, tab, `?offset=${EXCEL_DATA_ROWS - 1}&limit=5`));
  return { status: res.status, body: await res.json() };
}

describe("Excel's tallest sheet, with the default file limits", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('reads a 1,048,575-row, 10-column .xlsx and answers its last row', async () => {
    h = await startHarness();
    const file = path.join(h.dir, 'tall.xlsx');
    await writeTallXlsx(file, COLUMNS);
    // Past what was refused before: 10,000,000 cells, 300 MB unpacked.
    expect(EXCEL_DATA_ROWS * COLUMNS).toBeGreaterThan(10_000_000);
    const unpacked = readZipDirectory(readFileSync(file)).reduce((sum, e) => sum + e.uncompressedSize, 0);
    expect(unpacked).toBeGreaterThan(300 * MB);

    const { status, body } = await readLastRow(h, file, 'Rows');
    expect(status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body).toEqual([lastRow()]);
  }, 240_000);

  it('reads a CSV of the same rows and answers its last row', async () => {
    h = await startHarness();
    const file = path.join(h.dir, 'tall.csv');
    await writeTallCsv(file, COLUMNS);
    // Past what was refused before: a 100 MB file.
    expect(statSync(file).size).toBeGreaterThan(100 * MB);

    const { status, body } = await readLastRow(h, file, 'tall');
    expect(status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body).toEqual([lastRow()]);
  }, 240_000);
});
