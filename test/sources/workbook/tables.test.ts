/**
 * Tables ("Format as Table") follow appends and deletes the way Excel moves them. Workbooks are made by
 * openpyxl (also as Excel writes its table parts) and by ExcelJS, written through the source, and checked
 * with openpyxl, ExcelJS and, when it is installed, LibreOffice.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, describe, expect, it } from 'vitest';
import type { Source } from '../../../server/sources/source.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { runPython } from '../../helpers/openpyxl.ts';
import { loadWorkbook, PLAIN, rejection, removeTempDirs, saveWorkbook, sha, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

/**
 * argv: file, layout. `basic`: sheet Data with Orders A1:C4 and Other E1:F2, sheet Totals with a table
 * with a totals row. `stacked`: Orders A1:C6, Other E1:F2 and Lower H4:I6 whose header is a data row of
 * the tab. `excel`: `basic` with its table parts as Excel writes them (no `headerRowCount`, 1 by default).
 */
const MAKE = `
import re, shutil, sys, zipfile, openpyxl
from openpyxl.worksheet.filters import AutoFilter
from openpyxl.worksheet.table import Table, TableColumn, TableStyleInfo
file, layout = sys.argv[1], sys.argv[2]
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Data'
rows = 5 if layout == 'stacked' else 3
ws.append(['Name', 'Qty', 'Price'])
for i in range(1, rows + 1):
    ws.append([f'n{i}', i, i * 1.5])
orders = Table(displayName='Orders', ref=f'A1:C{rows + 1}')
orders.tableStyleInfo = TableStyleInfo(name='TableStyleMedium9', showRowStripes=True)
ws.add_table(orders)
ws['E1'], ws['F1'], ws['E2'], ws['F2'] = 'k', 'v', 'a', 1
ws.add_table(Table(displayName='Other', ref='E1:F2'))
if layout == 'stacked':
    for r, (x, y) in enumerate([('x', 'y'), ('x1', 1), ('x2', 2)], start=4):
        ws.cell(r, 8, x)
        ws.cell(r, 9, y)
    ws.add_table(Table(displayName='Lower', ref='H4:I6'))
else:
    t = wb.create_sheet('Totals')
    t.append(['Item', 'Amount'])
    t.append(['x1', 10])
    t.append(['x2', 20])
    t.append(['Total', '=SUBTOTAL(109,Sums[Amount])'])
    t.add_table(Table(
        displayName='Sums', ref='A1:B4', totalsRowCount=1, autoFilter=AutoFilter(ref='A1:B3'),
        tableColumns=[TableColumn(id=1, name='Item', totalsRowLabel='Total'),
                      TableColumn(id=2, name='Amount', totalsRowFunction='sum')],
    ))
wb.save(file)
if layout == 'excel':
    shutil.move(file, file + '.tmp')
    with zipfile.ZipFile(file + '.tmp') as zin, zipfile.ZipFile(file, 'w', zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.startswith('xl/tables/'):
                data = re.sub(rb'\\sheaderRowCount="1"', b'', data)
            zout.writestr(item, data)
`;

/** Every table and every non-empty cell of every sheet, as openpyxl sees them. */
const LOOK = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
out = {}
for ws in wb.worksheets:
    tables = {}
    for name in list(ws.tables.keys()):
        t = ws.tables[name]
        f = t.autoFilter
        s = t.tableStyleInfo
        tables[name] = {
            'ref': t.ref,
            'filter': f.ref if f is not None else None,
            'header': t.headerRowCount,
            'totals': t.totalsRowCount,
            'style': s.name if s is not None else None,
            'stripes': bool(s.showRowStripes) if s is not None else None,
            # A filter button is shown unless a filterColumn hides it: which columns have an element is the writer's choice.
            'buttonsHidden': any(bool(c.hiddenButton) for c in f.filterColumn) if f is not None else None,
        }
    cells = {c.coordinate: c.value for row in ws.iter_rows() for c in row if c.value is not None}
    out[ws.title] = {'tables': tables, 'cells': cells}
print(json.dumps(out, default=str))
`;

import { writeOne } from '../../helpers/source-write.ts';

interface LookedTable {
  ref: string;
  filter: string | null;
  header: number | null;
  totals: number | null;
  style: string | null;
  stripes: boolean | null;
  buttonsHidden: boolean | null;
}
type Looked = Record<string, { tables: Record<string, LookedTable>; cells: Record<string, unknown> }>;

async function look(file: string): Promise<Looked> {
  return JSON.parse(await runPython(LOOK, [file])) as Looked;
}

/**
 * A copy of the file whose absolute relationship targets (`/xl/tables/table1.xml`, as openpyxl writes them and
 * as the service keeps them) are made relative: ExcelJS resolves only relative targets, Excel reads both.
 */
async function withRelativeTargets(file: string): Promise<string> {
  const zip = await JSZip.loadAsync(await fs.readFile(file));
  for (const name of Object.keys(zip.files).filter((n) => n.endsWith('.rels'))) {
    const sourceDir = path.posix.dirname(path.posix.dirname(name));
    const xml = await zip.file(name)!.async('string');
    zip.file(
      name,
      xml.replace(/Target="\/([^"]+)"/g, (_m, target: string) => {
        const relative = path.posix.relative(sourceDir === '.' ? '' : sourceDir, target);
        return `Target="${relative}"`;
      }),
    );
  }
  const copy = `${file}.relative.xlsx`;
  await fs.writeFile(copy, await zip.generateAsync({ type: 'nodebuffer' }));
  return copy;
}

/** Table name -> [tableRef, autoFilterRef] as ExcelJS loads the file (it must load at all). */
async function excelJsTables(file: string): Promise<Record<string, Record<string, [string, string]>>> {
  const copy = await withRelativeTargets(file);
  const wb = await loadWorkbook(copy);
  await fs.rm(copy);
  const out: Record<string, Record<string, [string, string]>> = {};
  for (const ws of wb.worksheets) {
    const holders = (ws as unknown as { tables: Record<string, { table: Record<string, string> }> }).tables;
    out[ws.name] = Object.fromEntries(
      Object.entries(holders).map(([name, { table }]) => [
        name,
        [table.tableRef as string, table.autoFilterRef as string],
      ]),
    );
  }
  return out;
}

async function madeByOpenpyxl(layout: 'basic' | 'stacked' | 'excel') {
  const dir = await tempDir();
  const file = path.join(dir, `${layout}.xlsx`);
  await runPython(MAKE, [file, layout]);
  return { dir, file, source: createWorkbookSource(file) };
}

async function rowsOf(source: Source, sheetId: string) {
  const snapshot = await source.read();
  return snapshot.tabs.find((t) => t.sourceSheetId === sheetId)?.typed;
}

/** The first sheet as LibreOffice converts it to CSV (`scripts/install-test-deps.sh` installs LibreOffice). */
async function libreOfficeCsv(file: string, dir: string): Promise<string[]> {
  const soffice = '/usr/bin/soffice';
  const out = path.join(dir, 'csv');
  await promisify(execFile)(
    soffice,
    [
      '--headless',
      `-env:UserInstallation=file://${path.join(dir, 'lo-profile')}`,
      '--convert-to',
      'csv',
      '--outdir',
      out,
      file,
    ],
    { timeout: 90_000 },
  );
  const csv = await fs.readFile(path.join(out, `${path.basename(file, '.xlsx')}.csv`), 'utf8');
  return csv.trimEnd().split(/\r?\n/);
}

const ORDERS = {
  header: 1,
  totals: null,
  style: 'TableStyleMedium9',
  stripes: true,
  buttonsHidden: false,
};

describe('tables follow appends', () => {
  it('rows appended right below a table join it; other tables stay as they are', async () => {
    const { dir, file, source } = await madeByOpenpyxl('basic');
    const result = await writeOne(
      source,
      '1',
      [
        { op: 'append', values: { Name: 'n4', Qty: 4, Price: 6 } },
        { op: 'append', values: { Name: 'n5', Qty: 5 } },
      ],
      PLAIN,
    );
    expect(result).toMatchObject({ appended: 2 });

    const seen = await look(file);
    expect(seen.Data?.tables).toEqual({
      Orders: { ref: 'A1:C6', filter: 'A1:C6', ...ORDERS },
      // Not touching the new rows (it ends at row 2): kept as it was, no style info, filter buttons shown.
      Other: {
        ref: 'E1:F2',
        filter: 'E1:F2',
        header: 1,
        totals: null,
        style: null,
        stripes: null,
        buttonsHidden: false,
      },
    });
    expect(seen.Totals?.tables.Sums).toMatchObject({ ref: 'A1:B4', filter: 'A1:B3', totals: 1 });
    expect(seen.Data?.cells).toMatchObject({ A5: 'n4', B5: 4, C5: 6, A6: 'n5', B6: 5, E2: 'a', F2: 1 });
    expect(seen.Data?.cells.C6).toBeUndefined();

    expect(await excelJsTables(file)).toEqual({
      Data: { Orders: ['A1:C6', 'A1:C6'], Other: ['E1:F2', 'E1:F2'] },
      Totals: { Sums: ['A1:B4', 'A1:B3'] },
    });
    expect((await rowsOf(source, '1'))?.map((row) => row.slice(0, 3))).toEqual([
      ['n1', 1, 1.5],
      ['n2', 2, 3],
      ['n3', 3, 4.5],
      ['n4', 4, 6],
      ['n5', 5, null],
    ]);

    // A third program reads the same cells.
    expect(await libreOfficeCsv(file, dir)).toEqual([
      'Name,Qty,Price,,k,v',
      'n1,1,1.5,,a,1',
      'n2,2,3,,,',
      'n3,3,4.5,,,',
      'n4,4,6,,,',
      'n5,5,,,,',
    ]);
    await source.close();
  }, 120_000);

  it('a table with a totals row is not grown; deleting its totals row turns the totals row off', async () => {
    const { file, source } = await madeByOpenpyxl('basic');
    const totals = (await source.read()).tabs.find((t) => t.name === 'Totals')!;
    await writeOne(
      source,
      totals.sourceSheetId,
      [{ op: 'append', values: { Item: 'x3', Amount: 30 } }],
      PLAIN,
    );
    let seen = await look(file);
    // The new row lands below the totals row, outside the table, as typing there does in Excel.
    expect(seen.Totals?.tables.Sums).toMatchObject({ ref: 'A1:B4', filter: 'A1:B3', header: 1, totals: 1 });
    expect(seen.Totals?.cells).toMatchObject({ A4: 'Total', B4: '=SUBTOTAL(109,Sums[Amount])', A5: 'x3' });
    expect(seen.Data?.tables.Orders?.ref).toBe('A1:C4');

    await writeOne(source, totals.sourceSheetId, [{ op: 'delete', row: 3 }], PLAIN);
    seen = await look(file);
    expect(seen.Totals?.tables.Sums).toMatchObject({
      ref: 'A1:B3',
      filter: 'A1:B3',
      header: 1,
      totals: null,
    });
    expect(seen.Totals?.cells).toEqual({
      A1: 'Item',
      B1: 'Amount',
      A2: 'x1',
      B2: 10,
      A3: 'x2',
      B3: 20,
      A4: 'x3',
      B4: 30,
    });
    await source.close();
  });

  it('tables from Excel (no headerRowCount attribute) keep their header row and filter buttons', async () => {
    const { file, source } = await madeByOpenpyxl('excel');
    expect(await rowsOf(source, '1')).toHaveLength(3);
    await writeOne(source, '1', [{ op: 'append', values: { Name: 'n4', Qty: 4, Price: 6 } }], PLAIN);
    const seen = await look(file);
    // Both keep their header row and show their filter buttons (no hiddenButton="1"), as the file had them.
    expect(seen.Data?.tables.Orders).toEqual({ ref: 'A1:C5', filter: 'A1:C5', ...ORDERS });
    expect(seen.Data?.tables.Other).toMatchObject({ ref: 'E1:F2', header: 1, buttonsHidden: false });
    expect(seen.Totals?.tables.Sums).toMatchObject({ ref: 'A1:B4', header: 1, totals: 1 });
    await source.close();
  });
});

describe('tables follow deletes', () => {
  it('a delete inside a table shrinks it, one below leaves it, one above moves it up', async () => {
    const { file, source } = await madeByOpenpyxl('stacked');
    // Sheet row 3: inside Orders (A1:C6), below Other (E1:F2), above Lower (H4:I6).
    await writeOne(source, '1', [{ op: 'delete', row: 2 }], PLAIN);
    const seen = await look(file);
    expect(seen.Data?.tables).toMatchObject({
      Orders: { ref: 'A1:C5', filter: 'A1:C5', ...ORDERS },
      Other: { ref: 'E1:F2', filter: 'E1:F2', header: 1 },
      Lower: { ref: 'H3:I5', filter: 'H3:I5', header: 1 },
    });
    expect(seen.Data?.cells).toEqual({
      A1: 'Name',
      B1: 'Qty',
      C1: 'Price',
      E1: 'k',
      F1: 'v',
      A2: 'n1',
      B2: 1,
      C2: 1.5,
      E2: 'a',
      F2: 1,
      A3: 'n3',
      B3: 3,
      C3: 4.5,
      H3: 'x',
      I3: 'y',
      A4: 'n4',
      B4: 4,
      C4: 6,
      H4: 'x1',
      I4: 1,
      A5: 'n5',
      B5: 5,
      C5: 7.5,
      H5: 'x2',
      I5: 2,
    });
    expect(await excelJsTables(file)).toEqual({
      Data: { Orders: ['A1:C5', 'A1:C5'], Other: ['E1:F2', 'E1:F2'], Lower: ['H3:I5', 'H3:I5'] },
    });
    await source.close();
  });

  it("deleting a table's header row is refused and the file stays as it was", async () => {
    const { file, source } = await madeByOpenpyxl('stacked');
    const before = await sha(file);
    // Sheet row 4 is a data row of the tab but the header row of Lower.
    const error = await rejection(writeOne(source, '1', [{ op: 'delete', row: 3 }], PLAIN));
    expect(error).toMatchObject({ code: 'conflict', details: { row: 3, table: 'Lower' } });
    expect(await sha(file)).toBe(before);
    await writeOne(source, '1', [{ op: 'delete', row: 4 }], PLAIN); // Lower's first data row is fine
    expect((await look(file)).Data?.tables.Lower?.ref).toBe('H4:I5');
    await source.close();
  });

  it('deleting all of a table’s rows keeps one empty row under the header, which the next append fills', async () => {
    const { file, source } = await madeByOpenpyxl('basic');
    await writeOne(
      source,
      '1',
      [1, 2, 3].map((row) => ({ op: 'delete' as const, row })),
      PLAIN,
    );
    let seen = await look(file);
    // Row 2 was the last data row of both tables: it stays, emptied.
    expect(seen.Data?.tables.Orders).toMatchObject({ ref: 'A1:C2', filter: 'A1:C2', header: 1 });
    expect(seen.Data?.tables.Other).toMatchObject({ ref: 'E1:F2', filter: 'E1:F2', header: 1 });
    expect(seen.Data?.cells).toEqual({ A1: 'Name', B1: 'Qty', C1: 'Price', E1: 'k', F1: 'v' });
    expect(await rowsOf(source, '1')).toEqual([]);

    await writeOne(
      source,
      '1',
      [
        { op: 'append', values: { Name: 'z1', Qty: 1 } },
        { op: 'append', values: { Name: 'z2', Qty: 2 } },
      ],
      PLAIN,
    );
    seen = await look(file);
    expect(seen.Data?.tables.Orders?.ref).toBe('A1:C3');
    expect(seen.Data?.tables.Other?.ref).toBe('E1:F2'); // the new rows fill no column of it
    expect(seen.Data?.cells).toMatchObject({ A2: 'z1', B2: 1, A3: 'z2', B3: 2 });
    expect((await rowsOf(source, '1'))?.map((row) => row.slice(0, 2))).toEqual([
      ['z1', 1],
      ['z2', 2],
    ]);
    await source.close();
  });
});

describe('tables in a workbook made by ExcelJS', () => {
  it('grow over covered appends only, and follow deletes, also within one batch', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Data');
    ws.addTable({
      name: 'Orders',
      ref: 'A1',
      headerRow: true,
      style: { theme: 'TableStyleMedium2', showRowStripes: true },
      columns: [
        { name: 'Name', filterButton: true },
        { name: 'Qty', filterButton: true },
        { name: 'Price', filterButton: true },
      ],
      rows: [
        ['n1', 1, 1.5],
        ['n2', 2, 3],
        ['n3', 3, 4.5],
      ],
    });
    ws.getCell('D1').value = 'Note'; // a column of the tab outside the table
    wb.addWorksheet('Other').addTable({
      name: 'Elsewhere',
      ref: 'B2',
      columns: [{ name: 'k' }, { name: 'v' }],
      rows: [['a', 1]],
    });
    const file = await saveWorkbook(wb, path.join(dir, 'exceljs.xlsx'));
    const source = createWorkbookSource(file);
    const refs = async () => {
      const tables = await excelJsTables(file);
      const seen = await look(file);
      expect(seen.Other?.tables.Elsewhere?.ref).toBe('B2:C3');
      expect(tables.Other).toEqual({ Elsewhere: ['B2:C3', 'B2:C3'] });
      return [tables.Data?.Orders?.[0], seen.Data?.tables.Orders?.ref, seen.Data?.tables.Orders?.filter];
    };

    await writeOne(source, '1', [{ op: 'append', values: { Name: 'n4', Qty: 4, Price: 6 } }], PLAIN);
    expect(await refs()).toEqual(['A1:C5', 'A1:C5', 'A1:C5']);

    // This row fills column D, which the table does not cover: it stays outside.
    await writeOne(source, '1', [{ op: 'append', values: { Name: 'n5', Note: 'outside' } }], PLAIN);
    expect(await refs()).toEqual(['A1:C5', 'A1:C5', 'A1:C5']);

    await writeOne(source, '1', [{ op: 'delete', row: 5 }], PLAIN); // below the table
    expect(await refs()).toEqual(['A1:C5', 'A1:C5', 'A1:C5']);

    await writeOne(source, '1', [{ op: 'delete', row: 1 }], PLAIN); // inside
    expect(await refs()).toEqual(['A1:C4', 'A1:C4', 'A1:C4']);

    // Every data row deleted and a row appended in one batch: the kept empty row takes the new one.
    await writeOne(
      source,
      '1',
      [
        ...[3, 2, 1].map((row) => ({ op: 'delete' as const, row })),
        { op: 'append', values: { Name: 'only', Qty: 9 } },
      ],
      PLAIN,
    );
    expect(await refs()).toEqual(['A1:C2', 'A1:C2', 'A1:C2']);
    expect(await rowsOf(source, '1')).toEqual([['only', 9, null, null]]);
    const seen = await look(file);
    expect(seen.Data?.cells).toEqual({ A1: 'Name', B1: 'Qty', C1: 'Price', D1: 'Note', A2: 'only', B2: 9 });
    expect(seen.Data?.tables.Orders).toMatchObject({ header: 1, style: 'TableStyleMedium2', stripes: true });
    await source.close();
  });
});
