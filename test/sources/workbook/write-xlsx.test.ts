import fs from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { TabSnapshot } from '../../../server/sources/source.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { readWithOpenpyxl } from '../../helpers/openpyxl.ts';
import { writeOne } from '../../helpers/source-write.ts';
import {
  coldRead,
  PLAIN,
  rejection,
  removeTempDirs,
  saveWorkbook,
  sha,
  tempDir,
  writeStyledWorkbook,
} from './helpers.ts';

afterAll(removeTempDirs);

async function styled(rows = 5) {
  const dir = await tempDir();
  const file = await writeStyledWorkbook(path.join(dir, 'book.xlsx'), rows);
  return { dir, file, source: createWorkbookSource(file) };
}

describe('writing .xlsx: fidelity (checked with openpyxl)', () => {
  it('changes only the named cells and keeps styles, formats, formulas, merges, widths and other tabs', async () => {
    const { file, source } = await styled();
    const result = await writeOne(
      source,
      '1',
      [
        { op: 'update', row: 2, values: { Qty: 7, Note: 'changed' } },
        { op: 'append', values: { Order: 'O-6', Qty: 6, Price: 60 } },
      ],
      PLAIN,
    );
    expect(result).toMatchObject({ appended: 1, updated: 1, deleted: 0 });

    const { sheets } = await readWithOpenpyxl(file);
    const [orders, summary] = sheets;
    expect(sheets.map((s) => s.name)).toEqual(['Orders', 'Summary']);
    const c = orders?.cells ?? {};
    // written cells
    expect(c.B3?.value).toBe(7);
    expect(c.F3?.value).toBe('changed');
    expect([c.A7?.value, c.B7?.value, c.C7?.value]).toEqual(['O-6', 6, 60]);
    // untouched cells: header style, number formats, formulas (with their cached results), dates
    expect(c.A1).toMatchObject({ value: 'Order', bold: true, fill: 'FFFFFF00' });
    expect(c.F1).toMatchObject({ value: 'Note', bold: true, fill: 'FFFFFF00' });
    expect(c.C2).toMatchObject({ value: 10, numFmt: '"$"#,##0.00' });
    expect(c.D2).toMatchObject({ value: '=B2*C2', cached: 10, numFmt: '"$"#,##0.00' });
    expect(c.D3).toMatchObject({ value: '=B3*C3', numFmt: '"$"#,##0.00' });
    expect(c.E4).toMatchObject({ value: '2024-01-03T00:00:00', numFmt: 'yyyy-mm-dd' });
    expect(c.A2?.fill).toBe('FFDDEEFF');
    // the appended row took the style of the row above, column by column
    expect(c.A7?.fill).toBe('FFDDEEFF');
    expect(c.C7?.numFmt).toBe('"$"#,##0.00');
    expect(c.E7?.numFmt).toBe('yyyy-mm-dd');
    // the style objects are shared in ExcelJS: the row above must not have changed
    expect(c.A6?.fill).toBe('FFDDEEFF');
    expect(c.A6?.value).toBe('O-5');
    // merged cells, widths, other tab
    expect(orders?.merged).toEqual(['F4:F5']);
    expect(c.F4?.value).toBe('odd');
    expect(orders?.widths.A).toBe(18);
    expect(orders?.widths.F).toBe(40);
    expect(summary?.cells.B2?.value).toBe('=SUM(Orders!D2:D6)');
    expect(summary?.cells.A1?.value).toBe('Metric');
  });

  it('clears cells on null and "" but keeps their style', async () => {
    const { file, source } = await styled();
    await writeOne(source, '1', [{ op: 'update', row: 1, values: { Price: null, Order: '' } }], PLAIN);
    const c = (await readWithOpenpyxl(file)).sheets[0]?.cells ?? {};
    expect(c.C2).toMatchObject({ value: null, numFmt: '"$"#,##0.00' });
    expect(c.A2).toMatchObject({ value: null, fill: 'FFDDEEFF' });
  });

  it('deletes rows: rows below move up; formulas, merges and references from other tabs follow', async () => {
    const { file, source } = await styled();
    const result = await writeOne(
      source,
      '1',
      [
        { op: 'delete', row: 5 },
        { op: 'delete', row: 1 },
      ],
      PLAIN,
    );
    expect(result.deleted).toBe(2);
    const tab = result.snapshot.tabs[0] as TabSnapshot;
    expect(tab.typed.map((r) => r[0])).toEqual(['O-2', 'O-3', 'O-4']);
    expect(tab.typed[1]).toEqual(['O-3', 3, 30, 90, '2024-01-03', 'odd']);

    const [orders, summary] = (await readWithOpenpyxl(file)).sheets;
    const c = orders?.cells ?? {};
    expect([c.A2?.value, c.D2?.value, c.C2?.numFmt, c.A2?.fill]).toEqual([
      'O-2',
      '=B2*C2',
      '"$"#,##0.00',
      'FFDDEEFF',
    ]);
    expect([c.A4?.value, c.D4?.value]).toEqual(['O-4', '=B4*C4']);
    expect(c.A5?.value ?? null).toBeNull();
    expect(c.D5?.value ?? null).toBeNull();
    expect(orders?.merged).toEqual(['F3:F4']);
    expect(c.F3?.value).toBe('odd');
    expect(c.A1).toMatchObject({ value: 'Order', bold: true });
    // SUM over the table shrinks; a reference to the deleted O-5 row becomes #REF! as in Excel
    expect(summary?.cells.B2?.value).toBe('=SUM(Orders!D2:D4)');
    expect(summary?.cells.B3?.value).toBe('=#REF!');
    expect(result.snapshot.tabs).toEqual(await coldRead(file));
  });

  it('keeps shared formulas working when rows move (Excel-style files)', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('S');
    ws.addRow(['a', 'b', 'sum']);
    for (let i = 1; i <= 4; i++) ws.addRow([i, i * 10]);
    ws.fillFormula('C2:C5', 'A2+B2', [11, 22, 33, 44]); // written as one shared formula
    const file = await saveWorkbook(wb, path.join(dir, 'shared.xlsx'));
    const source = createWorkbookSource(file);
    await writeOne(
      source,
      '1',
      [
        { op: 'delete', row: 1 },
        { op: 'update', row: 3, values: { a: 5 } },
      ],
      PLAIN,
    );
    const c = (await readWithOpenpyxl(file)).sheets[0]?.cells ?? {};
    expect([c.C2?.value, c.C3?.value, c.C4?.value]).toEqual(['=A2+B2', '=A3+B3', '=A4+B4']);
    expect(c.A3?.value).toBe(5);
    expect(c.C5?.value ?? null).toBeNull();
  });

  it('writes formulas only when allowed, and parses user-entered strings like a sheet', async () => {
    const { file, source } = await styled();
    await writeOne(source, '1', [{ op: 'update', row: 1, values: { Note: '=1+1' } }], PLAIN);
    expect((await readWithOpenpyxl(file)).sheets[0]?.cells.F2).toMatchObject({ value: '=1+1', type: 's' });

    await writeOne(source, '1', [{ op: 'update', row: 1, values: { Note: '=B2*2' } }], {
      allowFormulas: true,
      userEntered: false,
    });
    expect((await readWithOpenpyxl(file)).sheets[0]?.cells.F2).toMatchObject({ value: '=B2*2', type: 'f' });

    const result = await writeOne(
      source,
      '1',
      [
        { op: 'append', values: { Order: '007', Qty: '1,234.5', Price: '$1,234.50', Note: '12%' } },
        {
          op: 'append',
          values: { Order: 'TRUE', Qty: '2024-03-01', Date: '3/1/2024', Note: '2024-03-01T09:30' },
        },
        { op: 'append', values: { Order: 'plain text', Date: '2024-02-30' } },
      ],
      { allowFormulas: false, userEntered: true },
    );
    const tab = result.snapshot.tabs[0] as TabSnapshot;
    const rows = tab.typed.slice(-3);
    expect(rows[0]).toEqual([7, 1234.5, 1234.5, null, null, 0.12]);
    expect(tab.formatted.at(-3)?.[5]).toBe('12%');
    expect(rows[1]).toEqual([true, '2024-03-01', null, null, '2024-03-01', '2024-03-01T09:30:00']);
    expect(tab.formatted.at(-2)?.[5]).toBe('2024-03-01 09:30:00');
    expect(rows[2]).toEqual(['plain text', null, null, null, '2024-02-30', null]);
    // the returned snapshot is exactly what a cold read of the file gives
    expect(result.snapshot.tabs).toEqual(await coldRead(file));
    expect(result.snapshot.version).toBe(await source.version());
  });

  it('keeps a number a number and text text without user_entered', async () => {
    const { source } = await styled();
    const result = await writeOne(
      source,
      '1',
      [{ op: 'append', values: { Order: '007', Qty: '12', Date: '2024-03-01' } }],
      PLAIN,
    );
    expect(result.snapshot.tabs[0]?.typed.at(-1)?.slice(0, 5)).toEqual([
      '007',
      '12',
      null,
      null,
      '2024-03-01',
    ]);
  });

  it('writes a header from the appended keys when the tab is empty', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Data');
    const file = await saveWorkbook(wb, path.join(dir, 'empty.xlsx'));
    const source = createWorkbookSource(file);
    const result = await writeOne(
      source,
      '1',
      [
        { op: 'append', values: { name: 'Ann', age: 31 } },
        { op: 'append', values: { age: 25, city: 'Oslo' } },
      ],
      PLAIN,
    );
    expect(result.snapshot.tabs[0]).toMatchObject({
      header: ['name', 'age', 'city'],
      headerRow: 1,
      typed: [
        ['Ann', 31, null],
        [null, 25, 'Oslo'],
      ],
    });
    expect(await coldRead(file)).toEqual(result.snapshot.tabs);
  });

  it('returns the whole spreadsheet and a version equal to version()', async () => {
    const { file, source } = await styled();
    const result = await writeOne(source, '1', [{ op: 'append', values: { Order: 'O-6' } }], PLAIN);
    expect(result.snapshot.title).toBe('book.xlsx');
    expect(result.snapshot.tabs.map((t) => t.name)).toEqual(['Orders', 'Summary']);
    expect(result.snapshot.version).toBe(await source.version());
    expect(result.snapshot.tabs).toEqual(await coldRead(file));
    expect((await source.read()).tabs).toEqual(result.snapshot.tabs);
  });
});

describe('writing .xlsx: validation and preconditions', () => {
  const bad: [string, unknown[], string, Record<string, unknown>][] = [
    [
      'unknown field',
      [
        { op: 'append', values: { Order: 'x' } },
        { op: 'update', row: 1, values: { Nope: 1 } },
      ],
      'unknown_field',
      { field: 'Nope', index: 1 },
    ],
    ['row 0', [{ op: 'update', row: 0, values: { Qty: 1 } }], 'row_not_found', { row: 0, index: 0 }],
    ['row past the end', [{ op: 'delete', row: 6 }], 'row_not_found', { row: 6, index: 0 }],
    ['fractional row', [{ op: 'delete', row: 1.5 }], 'row_not_found', { row: 1.5, index: 0 }],
    [
      'update after delete',
      [
        { op: 'delete', row: 2 },
        { op: 'update', row: 2, values: { Qty: 1 } },
      ],
      'invalid_body',
      { row: 2, index: 1 },
    ],
    [
      'bad value type',
      [{ op: 'append', values: { Qty: { nested: true } } }],
      'invalid_body',
      { field: 'Qty', index: 0 },
    ],
    ['unknown op', [{ op: 'upsert', values: {} }], 'invalid_body', { index: 0 }],
  ];

  for (const [name, mutations, code, details] of bad) {
    it(`rejects ${name} and leaves the file byte-identical`, async () => {
      const { file, source } = await styled();
      const before = await sha(file);
      const st = await fs.stat(file);
      const error = await rejection(writeOne(source, '1', mutations as never, PLAIN));
      expect(error.code).toBe(code);
      expect(error.details).toMatchObject(details);
      expect(await sha(file)).toBe(before);
      expect((await fs.stat(file)).mtimeMs).toBe(st.mtimeMs);
    });
  }

  it('rejects an unknown tab with sheet_not_found', async () => {
    const { file, source } = await styled();
    const before = await sha(file);
    expect((await rejection(writeOne(source, '99', [{ op: 'delete', row: 1 }], PLAIN))).code).toBe(
      'sheet_not_found',
    );
    expect(await sha(file)).toBe(before);
  });

  it('calls the precondition with the fresh tab; a throw writes nothing', async () => {
    const { file, source } = await styled();
    const before = await sha(file);
    let seen: TabSnapshot | undefined;
    const error = await rejection(
      writeOne(source, '1', [{ op: 'append', values: { Order: 'x' } }], {
        ...PLAIN,
        precondition: (tab) => {
          seen = tab;
          throw Object.assign(new Error('stale'), { code: 'precondition_failed' });
        },
      }),
    );
    expect(error.message).toBe('stale');
    expect(seen?.typed.length).toBe(5);
    expect(seen?.header[0]).toBe('Order');
    expect(await sha(file)).toBe(before);
    // the source still works afterwards
    await writeOne(source, '1', [{ op: 'append', values: { Order: 'ok' } }], PLAIN);
    expect((await source.read()).tabs[0]?.typed.at(-1)?.[0]).toBe('ok');
  });
});
