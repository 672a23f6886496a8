/**
 * A write plan applied to the package: the tab's sheet edited (sheet-edit.ts) with everything around it
 * that the edit may change (tables, side parts, the workbook part, other tabs' formulas), the tab read back
 * from the rows it rewrote, then what formulas need (recalc-after-write.ts).
 */
import { AppError } from '../../../errors.ts';
import { pacer } from '../../../lib/pacer.ts';
import type { WritePlan } from '../../plan.ts';
import type { WriteOptions } from '../../source.ts';
import { shiftFormula } from '../formulas/formula-text.ts';
import { RowMap } from '../row-map.ts';
import { editedTab, shiftHeaderFormulas } from './edited-tab.ts';
import type { OpenWorkbook } from './open-workbook.ts';
import { relKind } from './package-parts.ts';
import { markRecalculation, recalculateAfterWrite } from './recalc-after-write.ts';
import { applyPlanToSheet } from './sheet-edit.ts';
import type { SheetEdit } from './sheet-edit-target.ts';
import { readSheetRow } from './sheet-row-read.ts';
import { tabAfterSimpleWrite } from './simple-write-tab.ts';
import { cacheUncomputedResults } from './uncomputed-results.ts';
import type { Tab } from './workbook-tabs.ts';

/** What the sheet editor may reach from the tab it edits. */
function editTarget(wb: OpenWorkbook, tab: Tab): SheetEdit {
  const { pkg, book } = wb;
  return {
    sheet: pkg.sheetXml(tab.part),
    sheetName: tab.entry.name,
    tables: pkg.tablesOf(tab.part),
    styles: pkg.styles(),
    date1904: book.date1904,
    otherSheets: () =>
      book.list.filter((t) => t !== tab).map((t) => ({ name: t.entry.name, sheet: pkg.sheetXml(t.part) })),
    sideParts: (kind) =>
      pkg
        .relsOf(tab.part)
        .filter((r) => relKind(r) === kind && !r.external)
        .map((r) => ({
          part: r.target,
          get: () => pkg.text(r.target),
          set: (text: string) => pkg.setText(r.target, text),
        })),
    workbookXml: {
      get: () => pkg.text(pkg.workbookPart) ?? '',
      set: (text: string) => pkg.setText(pkg.workbookPart, text),
    },
  };
}

/** Applies a plan validated against the tab's current version (OoxmlDocument.apply). */
export async function applyPlan(
  wb: OpenWorkbook,
  sourceSheetId: string,
  plan: WritePlan,
  options: WriteOptions,
): Promise<void> {
  const { pkg, book, held } = wb;
  const tab = book.find(sourceSheetId);
  const snapshot = held.get(sourceSheetId);
  if (!tab || !snapshot) throw new AppError('sheet_not_found', `No tab with id ${sourceSheetId}`);
  const edit = editTarget(wb, tab);
  const result = applyPlanToSheet(edit, snapshot, plan, options);
  if (!result.changed) return;
  const sheet = edit.sheet;
  const deleted = result.rows.deleted.length > 0 ? new RowMap(result.rows.deleted) : undefined;
  const sheetName = tab.entry.name;
  const reread = (row: number) => readSheetRow(sheet, row, snapshot, pkg.styles(), book.date1904);
  const shift =
    deleted && ((text: string) => shiftFormula(text, { sheetName, onSameSheet: true, rows: deleted }));
  const later = tabAfterSimpleWrite(snapshot, result.rows, reread, shift);
  if (later) held.setLater(sourceSheetId, later);
  else held.set(sourceSheetId, editedTab(snapshot, result.rows, reread, shift));
  if (deleted) shiftOtherTabsFormulas(wb, tab, deleted);
  if (result.formulas) held.withFormulas.add(sourceSheetId);
  // Held results first: a row the recalculation rewrites is read back whole, its formulas not reached too.
  if (held.uncomputed.size > 0) await cacheUncomputed(wb);
  if (held.withFormulas.size > 0) await recalculateAfterWrite(wb, tab, result.rows, deleted);
  markRecalculation(wb, held.withFormulas.has(sourceSheetId));
}

/** Formulas the file holds without a result get the held ones (uncomputed-results.ts), once. */
async function cacheUncomputed({ pkg, book, held }: OpenWorkbook): Promise<void> {
  held.all();
  const pace = pacer();
  for (const t of book.list) {
    const id = t.entry.sheetId;
    if (!held.uncomputed.delete(id)) continue;
    const snapshot = held.peek(id);
    if (snapshot) await cacheUncomputedResults(pkg.sheetXml(t.part), snapshot, book.date1904, pace);
  }
}

/** Other tabs' formulas pointing below deleted rows now read differently (the delete rewrote them). */
function shiftOtherTabsFormulas({ book, held }: OpenWorkbook, written: Tab, rows: RowMap): void {
  const ctx = { sheetName: written.entry.name, onSameSheet: false, rows };
  for (const other of book.list) {
    if (other === written) continue; // before `peek`, which would make the written tab's new version now
    const snapshot = held.peek(other.entry.sheetId);
    if (!snapshot) continue;
    if (snapshot.formulas.size === 0 && snapshot.headerFormulas.size === 0) continue;
    const formulas = new Map<number, string>();
    for (const [at, text] of snapshot.formulas) formulas.set(at, shiftFormula(text, ctx));
    const header = shiftHeaderFormulas(snapshot.headerFormulas, (text) => shiftFormula(text, ctx));
    held.set(other.entry.sheetId, snapshot.withFormulaTexts(formulas, header));
  }
}
