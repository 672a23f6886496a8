/**
 * The service's former .xlsx engine, kept for tests only: an independent reader and writer the surgical
 * engine is compared with (test/sources/workbook/ooxml/engine-parity.test.ts, corpus.test.ts). Not product code.
 *
 * An .xlsx file held in memory as an ExcelJS workbook. Tabs are read lazily and cached until a write
 * touches them, so a write on a big file does not re-format every untouched tab.
 *
 * Round-trip limits (ExcelJS rewrites the whole package on save): charts, pivot tables, slicers,
 * sparklines, form controls, VBA, external links and chart sheets are dropped; images, comments, merged
 * cells, data validation, conditional formats, column widths, frozen panes, hidden sheets and styles are
 * kept. Defined names survive only when they are absolute cell ranges (`Sheet!$A$1:$B$9`): ExcelJS drops
 * constants, formulas and whole-column names on load. Files holding parts a save would drop are
 * read-only (see xlsx-package.ts). A file ExcelJS still cannot open is reported as upstream_error and
 * never modified.
 */
import ExcelJS from 'exceljs';
import { AppError } from '../../../../server/errors.ts';
import type { WritePlan } from '../../../../server/sources/plan.ts';
import type { TabSnapshot, WriteOptions } from '../../../../server/sources/source.ts';
import type { GridCell } from '../../../../server/sources/tab.ts';
import { buildTab } from '../../../../server/sources/tab.ts';
import type { WorkbookDocument } from '../../../../server/sources/workbook/document.ts';
import { readXlsxCell } from './xlsx-cell.ts';
import { compactDataValidations, repairTables } from './xlsx-fixups.ts';
import { prepareXlsxPackage } from './xlsx-package.ts';
import { applyPlanToWorksheet } from './xlsx-write.ts';

function readWorksheet(ws: ExcelJS.Worksheet): TabSnapshot {
  const grid: (GridCell | null)[][] = [];
  ws.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: (GridCell | null)[] = [];
    row.eachCell({ includeEmpty: false }, (cell, colNumber) => {
      const value = readXlsxCell(cell);
      if (value) cells[colNumber - 1] = value;
    });
    if (cells.length > 0) grid[rowNumber - 1] = cells;
  });
  return buildTab(String(ws.id), ws.name, grid);
}

export class XlsxDocument implements WorkbookDocument {
  readonly workbook: ExcelJS.Workbook;
  /** Features of the file that a save would drop (charts, macros...); non-empty makes the file read-only. */
  readonly lostOnSave: readonly string[];
  readonly #tabs = new Map<string, TabSnapshot>();

  constructor(workbook: ExcelJS.Workbook, lostOnSave: readonly string[] = []) {
    this.workbook = workbook;
    this.lostOnSave = lostOnSave;
  }

  static async parse(bytes: Uint8Array): Promise<XlsxDocument> {
    const workbook = new ExcelJS.Workbook();
    const prepared = await prepareXlsxPackage(bytes);
    try {
      await workbook.xlsx.load(prepared.bytes as unknown as ExcelJS.Buffer);
    } catch (e) {
      // The message reaches clients: ExcelJS/zip errors name no paths since we load from memory.
      throw new AppError('upstream_error', `Could not read workbook: ${(e as Error).message ?? String(e)}`);
    }
    return new XlsxDocument(workbook, prepared.lostOnSave);
  }

  #worksheet(sourceSheetId: string): ExcelJS.Worksheet | undefined {
    return this.workbook.worksheets.find((ws) => String(ws.id) === sourceSheetId);
  }

  tab(sourceSheetId: string): TabSnapshot | undefined {
    const cached = this.#tabs.get(sourceSheetId);
    if (cached) return cached;
    const ws = this.#worksheet(sourceSheetId);
    if (!ws) return undefined;
    const tab = readWorksheet(ws);
    this.#tabs.set(sourceSheetId, tab);
    return tab;
  }

  tabs(): TabSnapshot[] {
    return this.workbook.worksheets.map((ws) => this.tab(String(ws.id)) as TabSnapshot);
  }

  assertWritable(): void {
    if (this.lostOnSave.length > 0) {
      throw new AppError(
        'conflict',
        `This workbook contains ${this.lostOnSave.join(', ')}, which SheetPort cannot keep when it saves the file; ` +
          'writes are refused so nothing is lost. Reads work as usual.',
        { unsupported_features: this.lostOnSave },
      );
    }
  }

  apply(sourceSheetId: string, plan: WritePlan, options: WriteOptions): void {
    const ws = this.#worksheet(sourceSheetId);
    const tab = this.tab(sourceSheetId);
    if (!ws || !tab) throw new AppError('sheet_not_found', `No tab with id ${sourceSheetId}`);
    // Deletes can rewrite formulas on other tabs; the cached results they show do not change, but drop
    // every cached tab anyway rather than reason about it.
    if (plan.deletes.length > 0) this.#tabs.clear();
    else this.#tabs.delete(sourceSheetId);
    applyPlanToWorksheet(ws, tab, plan, options);
  }

  async serialize(): Promise<readonly Uint8Array[]> {
    for (const ws of this.workbook.worksheets) {
      compactDataValidations(ws);
      repairTables(ws);
    }
    const buffer: unknown = await this.workbook.xlsx.writeBuffer();
    return [Buffer.isBuffer(buffer) ? buffer : new Uint8Array(buffer as ArrayBuffer)];
  }
}
