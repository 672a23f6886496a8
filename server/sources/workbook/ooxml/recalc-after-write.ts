/**
 * What a write leaves for formulas: the ones it reached computed again (recalculation.ts) with the tabs
 * read back from the rewritten rows, and the workbook told to recalculate on open (its calcChain dropped).
 */
import { pacer } from '../../../lib/pacer.ts';
import type { CellTab } from '../cell-tab.ts';
import type { RowMap } from '../row-map.ts';
import { editedTab, type ReadRow } from './edited-tab.ts';
import { CONTENT_TYPES } from './ooxml-package.ts';
import type { OpenWorkbook } from './open-workbook.ts';
import { relsNameOf, removeOverrides, removeRelsTo } from './package-parts.ts';
import { recalcStopAt } from './recalc-time.ts';
import { type RecalcInput, type RecalcTab, recalculate, type Spans } from './recalculation.ts';
import type { SheetRowChanges } from './sheet-edit.ts';
import { readSheetRow } from './sheet-row-read.ts';
import { tabAfterSimpleWrite } from './simple-write-tab.ts';
import { tableInfos } from './tab-read.ts';
import { readWorkbookInfo, withFullCalcOnLoad } from './workbook-part.ts';
import { definedNames, type Tab } from './workbook-tabs.ts';

/**
 * The rows whose values the write may have changed, as they are numbered now. A delete moves the rows below it
 * with their formulas, whose references move with them (shiftFormula): a formula reads other values only where
 * a range lost a row, and such a range now reaches across the place the rows left, the rows either side of it.
 * The other ways a delete changes a result (a reference cut to #REF!, ROW) are the recalculation's own
 * (`rowsMoved`).
 */
function changedSpans(rows: SheetRowChanges, deleted: RowMap | undefined): Spans {
  const changed: Spans = [];
  for (const row of rows.updated) {
    const now = deleted ? deleted.row(row) : row;
    if (now !== null) changed.push([now, now]);
  }
  for (const row of [...rows.appended, ...rows.cleared]) changed.push([row, row]);
  if (rows.newHeader) changed.push([1, 1]);
  if (deleted) for (const at of placesLeft(rows.deleted)) changed.push([at - 1, at]);
  return changed;
}

/** Where each deleted row was, as the rows are numbered now: the number of the first row below it that stayed. */
function placesLeft(deleted: readonly number[]): number[] {
  const sorted = [...new Set(deleted)].sort((a, b) => a - b);
  return sorted.map((row, before) => row - before);
}

/**
 * What the recalculation reads of the workbook beside its tabs: its defined names and tables (as it holds them
 * now: a row delete rewrites defined names), and what each formula reads as worked out before.
 */
export function formulaContext(wb: OpenWorkbook): Pick<RecalcInput, 'names' | 'tables' | 'precedents'> {
  const { pkg, book } = wb;
  const info = readWorkbookInfo(pkg.text(pkg.workbookPart) ?? '');
  return { names: definedNames(info), tables: tableInfos(pkg, book), precedents: wb.precedents };
}

/**
 * The formulas the write reached computed again, their results cached in the sheets and in the tabs; reads are
 * answered between formulas, and past the file's time limit the write is refused (recalc-time.ts).
 */
export async function recalculateAfterWrite(
  wb: OpenWorkbook,
  written: Tab,
  rows: SheetRowChanges,
  deleted: RowMap | undefined,
): Promise<void> {
  const { pkg, book, held } = wb;
  const stopAt = recalcStopAt(wb.limits);
  const pace = pacer();
  held.all();
  const tabs: RecalcTab[] = book.list.map((t) => ({
    name: t.entry.name,
    snapshot: held.peek(t.entry.sheetId) as CellTab,
    sheet: () => pkg.sheetXml(t.part),
  }));
  const rewritten = await recalculate({
    tabs,
    changed: new Map([[written.entry.name.toLowerCase(), changedSpans(rows, deleted)]]),
    ...formulaContext(wb),
    date1904: book.date1904,
    rowsMoved: deleted !== undefined,
    pace,
    stopAt,
  });
  for (const [tab, rowList] of rewritten) {
    const t = book.named(tab.name) as Tab;
    const sheet = pkg.sheetXml(t.part);
    const changes: SheetRowChanges = {
      updated: [...new Set(rowList)],
      deleted: [],
      cleared: [],
      newHeader: false,
      header: rowList.includes(tab.snapshot.headerRow),
      appended: [],
    };
    const readRow = (row: number) => readSheetRow(sheet, row, tab.snapshot, pkg.styles(), book.date1904);
    // Read back a slice at a time too: a running balance changed in every row rewrites them all.
    const read = new Map<number, ReadRow | null>();
    for (const row of changes.updated) {
      read.set(row, readRow(row));
      await pace();
    }
    const reread = (row: number) => (read.has(row) ? (read.get(row) ?? null) : readRow(row));
    // Results rewritten in place leave every formula where it was: the common write's copy, made later.
    const later = tabAfterSimpleWrite(tab.snapshot, changes, reread);
    if (later) held.setLater(t.entry.sheetId, later);
    else held.set(t.entry.sheetId, editedTab(tab.snapshot, changes, reread));
  }
}

/** Cached formula results may be stale now: Excel recalculates on open, and calcChain would be wrong. */
export function markRecalculation(wb: OpenWorkbook, formulasTouched: boolean): void {
  const { pkg } = wb;
  const calcChain = pkg.relTarget('calcChain');
  const hasCalcChain =
    calcChain !== undefined && pkg.archive.has(calcChain) && pkg.texts.get(calcChain) !== null;
  if (!hasCalcChain && !formulasTouched) return;
  const workbook = pkg.text(pkg.workbookPart) ?? '';
  const flagged = withFullCalcOnLoad(workbook);
  if (flagged !== workbook) pkg.setText(pkg.workbookPart, flagged);
  if (!hasCalcChain || calcChain === undefined) return;
  const removed = new Set([calcChain]);
  pkg.setText(calcChain, null);
  const relsName = pkg.partName(relsNameOf(pkg.workbookPart));
  const rels = pkg.text(relsName);
  if (rels !== undefined) pkg.setText(relsName, removeRelsTo(rels, pkg.workbookPart, removed));
  const types = pkg.text(CONTENT_TYPES);
  if (types !== undefined) pkg.setText(CONTENT_TYPES, removeOverrides(types, removed));
}
