/**
 * Timings for the workbook source (not part of `vitest run`; run with `node bench/workbook.ts`).
 * Reads 5k and 100k-row x 8-column .xlsx files, single appends on a 300-row demo workbook (cold and with
 * the parsed document cached), 50 parallel appends, and one append on the 100k file.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { createDemoWorkbook } from '../server/sources/workbook/demo.ts';
import { createWorkbookSource } from '../server/sources/workbook/index.ts';

const plain = { allowFormulas: false, userEntered: false };

async function makeRows(file: string, rows: number): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: file,
    useStyles: true,
    useSharedStrings: true,
  });
  const ws = wb.addWorksheet('Data');
  ws.addRow(['ID', 'Name', 'Qty', 'Price', 'Date', 'Flag', 'Note', 'Total']).commit();
  for (let i = 1; i <= rows; i++) {
    const row = ws.addRow([
      `ID-${i}`,
      `Name ${i}`,
      i % 100,
      i * 1.25,
      new Date(Date.UTC(2024, 0, 1 + (i % 365))),
      i % 2 === 0,
      i % 5 ? null : 'note',
      { formula: `C${i + 1}*D${i + 1}`, result: (i % 100) * i * 1.25 },
    ]);
    row.getCell(4).numFmt = '"$"#,##0.00';
    row.getCell(5).numFmt = 'yyyy-mm-dd';
    row.commit();
  }
  await wb.commit();
}

async function time<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const result = await fn();
  console.log(`${label}: ${(performance.now() - t).toFixed(0)} ms`);
  return result;
}

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sheetport-bench-'));
try {
  for (const rows of [5_000, 100_000]) {
    const file = path.join(dir, `rows-${rows}.xlsx`);
    await makeRows(file, rows);
    const source = createWorkbookSource(file);
    const snap = await time(`read ${rows} rows x 8 cols (cold)`, () => source.read());
    if (snap.tabs[0]?.typed.length !== rows) throw new Error('row count mismatch');
    await time(`read ${rows} rows again (cached document)`, () => source.read());
    await time(`append 1 row to ${rows} rows (cached document)`, () =>
      source.write('1', [{ op: 'append', values: { ID: 'new' } }], plain),
    );
    await source.close();
  }

  const demo = path.join(dir, 'demo.xlsx');
  await createDemoWorkbook(demo);
  const source = createWorkbookSource(demo);
  await time('append 1 row to 300 rows (cold: parse + write)', () =>
    source.write('1', [{ op: 'append', values: { 'Order ID': 'A' } }], plain),
  );
  await time('append 1 row to 300 rows (cached document)', () =>
    source.write('1', [{ op: 'append', values: { 'Order ID': 'B' } }], plain),
  );
  await time('50 parallel single-row appends to 300 rows', () =>
    Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        source.write('1', [{ op: 'append', values: { 'Order ID': `P${i}` } }], plain),
      ),
    ),
  );
  await time('delete 1 row of 350 (formulas shifted)', () =>
    source.write('1', [{ op: 'delete', row: 1 }], plain),
  );
  await source.close();
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}
