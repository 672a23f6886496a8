/**
 * A tab just read makes its row arrays on demand and behind its first answers (rows-on-demand.ts, tab-rows.ts):
 * a plain page and one row are answered from the read's columns while the rest is still being made; anything
 * that reads every row (a search, `typed` itself) gets the whole tab, the same array the caches keyed by.
 * Through the real parse of an ExcelJS-written workbook; the reference is the same file's tab made whole at once.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { renderPage } from '../../../server/rows/page-cache.ts';
import { parseListQuery } from '../../../server/rows/query-params.ts';
import type { CellValue } from '../../../server/sources/source.ts';
import { rowCountOf, rowOf, rowsComplete, rowsOwner } from '../../../server/sources/tab-rows.ts';
import { type CellTab, decodeTab } from '../../../server/sources/workbook/cell-tab.ts';
import { engineNamed } from '../../../server/sources/workbook/engines.ts';
import { OoxmlDocument } from '../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { tabFitRefusal } from '../../../server/sources/workbook/tab-fit-refusal.ts';
import { removeTempDirs, saveWorkbook, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const ROWS = 30_000; // many steps of the paced pass (2,000 rows each)
let bytes: Buffer | undefined;

async function workbookBytes(): Promise<Buffer> {
  if (bytes) return bytes;
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Orders');
  ws.addRow(['Id', 'Region', 'Total', 'Shipped', 'Note', 'Check']);
  for (let i = 0; i < ROWS; i++) {
    ws.addRow([
      i + 1,
      ['north', 'south', 'east'][i % 3],
      (i * 7919) % 1000.5,
      i % 2 === 0,
      i % 10 === 0 ? `note ${i}` : null,
      i % 1000 === 0 ? { error: '#N/A' } : i % 3,
    ]);
  }
  bytes = await readFile(await saveWorkbook(wb, path.join(await tempDir(), 'orders.xlsx')));
  return bytes;
}

/** A fresh read of the workbook's tab, its rows not made yet. */
async function freshTab(): Promise<CellTab> {
  const doc = await OoxmlDocument.parse(await workbookBytes(), {
    maxCells: 1_000_000,
    maxTextChars: 10_000_000,
  });
  const [read] = await doc.readTabs();
  return decodeTab(read!.encoded);
}

/** The same tab with every row made at once (reading `typed`). */
async function wholeRows(): Promise<CellValue[][]> {
  return (await freshTab()).typed.map((row) => row.slice());
}

const query = (params: Record<string, string>) =>
  parseListQuery(params, { defaultLimit: 100, maxLimit: 1000 });

describe('rows made on demand', () => {
  it('answers a row and the row count from the columns, then is whole behind', async () => {
    const whole = await wholeRows();
    const tab = await freshTab();
    expect(tab.onDemand).toBeDefined();
    expect(rowCountOf(tab)).toBe(ROWS);
    expect(rowOf(tab, ROWS - 1)).toEqual(whole[ROWS - 1]);
    expect(rowOf(tab, 12_345)).toEqual(whole[12_345]);
    expect(rowOf(tab, ROWS)).toBeUndefined();
    expect(rowOf(tab, -1)).toBeUndefined();
    expect(rowOf(tab, 1.5)).toBeUndefined();
    expect(tab.onDemand).toBeDefined(); // those rows alone were made
    const owner = rowsOwner(tab);
    await rowsComplete([tab]);
    expect(tab.onDemand).toBeUndefined();
    expect(tab.typed).toBe(owner); // the array caches keyed by is the tab's rows
    expect(tab.typed).toEqual(whole);
    expect(rowOf(tab, 12_345)).toBe(tab.typed[12_345]); // the row made first is the one kept
  });

  it('makes every row at once when `typed` is read before the paced pass ends', async () => {
    const whole = await wholeRows();
    const tab = await freshTab();
    const early = rowOf(tab, 29_000);
    const typed = tab.typed;
    expect(tab.onDemand).toBeUndefined();
    expect(typed).toHaveLength(ROWS);
    expect(typed).toEqual(whole);
    expect(typed[29_000]).toBe(early);
    await rowsComplete([tab]); // the paced pass ends without making anything again
    expect(tab.typed).toBe(typed);
    expect(tab.typed).toEqual(whole);
  });

  it('makes no more rows behind once told to stop (a connect), and still answers every row when read', async () => {
    const whole = await wholeRows();
    const tab = await freshTab();
    const owner = rowsOwner(tab);
    tab.onDemand!.stopBehind();
    await rowsComplete([tab]); // the paced pass has ended
    // Long enough for the pass to have made every row had it gone on (30,000 rows: tens of milliseconds).
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Only the pass's first steps were made (those before the stop): the rest is still to make.
    expect(tab.onDemand).toBeDefined();
    expect(owner.filter((row) => row !== undefined).length).toBeLessThanOrEqual(ROWS / 4);
    expect(rowOf(tab, 25_000)).toEqual(whole[25_000]);
    expect(tab.typed).toEqual(whole);
    expect(tab.onDemand).toBeUndefined();
  });

  it('gives the columns back once every row is made', async () => {
    const doc = await OoxmlDocument.parse(await workbookBytes(), {
      maxCells: 1_000_000,
      maxTextChars: 10_000_000,
    });
    const [read] = await doc.readTabs();
    const tab = decodeTab(read!.encoded);
    expect(read!.encoded.values.length).toBe(ROWS * 6);
    await rowsComplete([tab]);
    expect(read!.encoded.values.length).toBe(0);
    expect(read!.encoded.kinds.length).toBe(0);
  });

  it('renders a plain page without making every row, and a search or a sort over the whole tab', async () => {
    const whole = await wholeRows();
    const tab = await freshTab();
    const plain = await renderPage(tab, query({ limit: '3', offset: '20000', fields: 'Id,Total' }));
    expect(tab.onDemand).toBeDefined();
    expect(plain.total).toBe(ROWS);
    expect(JSON.parse(plain.rendered.body.toString())).toEqual(
      [20_000, 20_001, 20_002].map((i) => ({ Id: whole[i]![0], Total: whole[i]![2] })),
    );
    const searched = await renderPage(tab, query({ search: 'Region:south', sort: '-Id', limit: '2' }));
    expect(tab.onDemand).toBeUndefined();
    const south = whole.filter((row) => row[1] === 'south');
    expect(searched.total).toBe(south.length);
    const ids = JSON.parse(searched.rendered.body.toString()).map((row: { Id: number }) => row.Id);
    expect(ids).toEqual([south.at(-1)![0], south.at(-2)![0]]);
  });

  it("checks whether a write fits the sheet from the row count, without making the tab's rows", async () => {
    const EXCEL_LIMITS = engineNamed('xlsx').limits;
    const tab = await freshTab();
    const job = (mutations: unknown[]) =>
      ({ sourceSheetId: tab.sourceSheetId, mutations, options: {} }) as never;
    expect(
      tabFitRefusal(
        [tab],
        job([
          { op: 'append', values: { Id: 1 } },
          { op: 'update', row: 29_999, values: { Region: 'west' } },
          { op: 'delete', row: 2 },
        ]),
        EXCEL_LIMITS,
      ),
    ).toBeNull();
    const narrow = { ...EXCEL_LIMITS, maxRows: ROWS + 1 }; // the header and every row: full
    const refusal = tabFitRefusal([tab], job([{ op: 'append', values: { Id: 1 } }]), narrow);
    expect(refusal?.code).toBe('conflict');
    expect(refusal?.details).toMatchObject({ limit_of: 'rows', left: 0, needed: 1 });
    expect(tab.onDemand).toBeDefined();
  });
});
