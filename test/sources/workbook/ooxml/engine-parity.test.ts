/**
 * The surgical engine reads and writes like the ExcelJS engine on the fixtures: same snapshots on open,
 * same snapshots after the same writes (updates, deletes, appends, typed and user-entered values), and the
 * same again when the written file is read back by either engine.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { planWrite } from '../../../../server/sources/plan.ts';
import type { Mutation, TabSnapshot, WriteOptions } from '../../../../server/sources/source.ts';
import type { CellTab } from '../../../../server/sources/workbook/cell-tab.ts';
import { createDemoWorkbook } from '../../../../server/sources/workbook/demo.ts';
import type { WorkbookDocument } from '../../../../server/sources/workbook/document.ts';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { writePeopleWorkbook } from '../../../helpers/fixtures.ts';
import { XlsxDocument } from '../exceljs-reference/xlsx-document.ts';
import { removeTempDirs, tempDir, writeStyledWorkbook } from '../helpers.ts';

afterAll(removeTempDirs);

const USER: WriteOptions = { allowFormulas: true, userEntered: true };

async function fixtures(): Promise<Record<string, Uint8Array>> {
  const dir = await tempDir();
  const demo = path.join(dir, 'demo.xlsx');
  await createDemoWorkbook(demo);
  return {
    people: await fs.readFile(await writePeopleWorkbook(dir)),
    demo: await fs.readFile(demo),
    styled: await fs.readFile(await writeStyledWorkbook(path.join(dir, 'styled.xlsx'), 8)),
  };
}

async function write(doc: WorkbookDocument, mutations: Mutation[], options: WriteOptions) {
  const tab = doc.tabs()[0];
  if (!tab) throw new Error('no tab');
  await doc.apply(tab.sourceSheetId, planWrite(tab, mutations), options);
}

/** A batch touching every value kind, with fields that exist in whichever tab it is given. */
function batchFor(doc: WorkbookDocument): Mutation[] {
  const header = doc.tabs()[0]?.header ?? [];
  const [a = 'A', b = a, c = b] = header;
  return [
    { op: 'update', row: 1, values: { [a]: 'changed', [b]: '12%' } },
    { op: 'update', row: 3, values: { [b]: '$1,234.50', [c]: '2024-05-06' } },
    // The styled fixture's Note column has a merge over sheet rows 4-5: row 4 is its hidden cell.
    { op: 'update', row: 4, values: { [header.at(-1) ?? a]: 'under a merge' } },
    { op: 'delete', row: 2 },
    { op: 'append', values: { [a]: 'new', [b]: 42, [c]: '2025-01-02 03:04:05' } },
    // A formula whose result is empty text: the ExcelJS reference computes nothing, so a formula with a
    // result would read differently by design (formulas.test.ts covers computed results).
    { op: 'append', values: { [a]: 'TRUE', [b]: '=""&""', [c]: null } },
  ];
}

/** Tabs as plain snapshots with every formula cell's value blanked. */
function withoutFormulaResults(tabs: TabSnapshot[], formulas: ReadonlyMap<number, string>[]) {
  return tabs.map((tab, i) => {
    const typed = tab.typed.map((row) => row.slice());
    const formatted = tab.formatted.map((row) => row.slice());
    const width = tab.header.length;
    for (const at of formulas[i]?.keys() ?? []) {
      const row = Math.floor(at / width);
      if (!typed[row]) continue;
      typed[row]![at % width] = null;
      formatted[row]![at % width] = '';
    }
    return { ...tab, typed, formatted };
  });
}

describe('the surgical .xlsx engine against the ExcelJS engine', () => {
  it('reads the fixtures to identical snapshots', async () => {
    for (const [name, bytes] of Object.entries(await fixtures())) {
      const surgical = await OoxmlDocument.parse(bytes);
      const exceljs = await XlsxDocument.parse(bytes);
      expect(surgical.tabs(), name).toEqual(exceljs.tabs());
    }
  });

  it('gives the same snapshots after the same writes, in memory and read back by both engines', async () => {
    for (const [name, bytes] of Object.entries(await fixtures())) {
      const surgical = await OoxmlDocument.parse(bytes);
      const exceljs = await XlsxDocument.parse(bytes);
      const batch = batchFor(exceljs);
      await write(surgical, batch, USER);
      await write(exceljs, batch, USER);
      // The surgical engine computes again the formulas a write reaches; the ExcelJS reference keeps their
      // stale cached results. Everything but formula results must match (formulas.test.ts checks those).
      const formulas = surgical.tabs().map((t) => (t as CellTab).formulas);
      const same = (tabs: TabSnapshot[]) => withoutFormulaResults(tabs, formulas);
      expect(same(surgical.tabs()), `${name} in memory`).toEqual(same(exceljs.tabs()));
      const written = Buffer.concat(await surgical.serialize());
      expect(same((await OoxmlDocument.parse(written)).tabs()), `${name} read back`).toEqual(
        same(exceljs.tabs()),
      );
      expect(same((await XlsxDocument.parse(written)).tabs()), `${name} read back by ExcelJS`).toEqual(
        same(exceljs.tabs()),
      );
    }
  });

  it('gives an empty tab the same new header and rows', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Empty');
    const bytes = new Uint8Array((await wb.xlsx.writeBuffer()) as ArrayBuffer);
    const surgical = await OoxmlDocument.parse(bytes);
    const exceljs = await XlsxDocument.parse(bytes);
    const batch: Mutation[] = [
      { op: 'append', values: { Name: 'Ann', When: '2024-01-02', Share: '50%' } },
      { op: 'append', values: { Name: 'Bob', Paid: true } },
    ];
    await write(surgical, batch, USER);
    await write(exceljs, batch, USER);
    expect(surgical.tabs()).toEqual(exceljs.tabs());
    expect(surgical.tabs()[0]?.header).toEqual(['Name', 'When', 'Share', 'Paid']);
    expect((await OoxmlDocument.parse(Buffer.concat(await surgical.serialize()))).tabs()).toEqual(
      exceljs.tabs(),
    );
  });
});
