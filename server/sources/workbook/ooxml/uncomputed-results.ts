/**
 * Formulas the file holds without a result (openpyxl, pandas and most generators write them so) read as the
 * result the service computed when it read the file. The first write to such a workbook stores those results
 * in the file as the formulas' cached values, for every data row of every tab, not only for the formulas the
 * write reached: from then on a program that does not calculate reads every formula as the API does. One pass
 * over the tab's rows, once per version of the file another program saved; a later write finds nothing to do.
 */
import type { CellTab } from '../cell-tab.ts';
import type { FormulaResult } from '../formulas/evaluator.ts';
import { formulaLibrary } from '../formulas/parser.ts';
import { snapshotCells } from '../formulas/snapshot-cells.ts';
import { withCachedResult } from './cached-result.ts';
import { parseRow, rowToXml } from './row-xml.ts';
import type { SheetXml } from './sheet-xml.ts';
import { getAttr } from './xml-text.ts';

const FORMULA = /<(?:[\w.-]+:)?f[\s/>]/;
const FORMULA_TAG = /<(?:[\w.-]+:)?f\b[^>]*>/;
const VALUE = /<(?:[\w.-]+:)?v(?:\s[^>]*)?(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?v>)/;

/** Whether a formula cell holds a result (an empty `<v>` counts only for a text result, as openpyxl writes). */
function hasResult(cellXml: string): boolean {
  const v = VALUE.exec(cellXml);
  if (!v) return false;
  if ((v[1] ?? '') !== '') return true;
  return getAttr(/^<[^>]*>/.exec(cellXml)?.[0] ?? '', 't') === 'str';
}

function asResult(value: unknown): FormulaResult | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return { kind: 'number', value };
  if (typeof value === 'boolean') return { kind: 'boolean', value };
  if (typeof value === 'string') return value === '' ? undefined : { kind: 'text', value };
  if (value instanceof formulaLibrary().FormulaError) return { kind: 'error', value: value.error };
  return undefined;
}

/** Writes the held results of the data rows' formulas that have none in the sheet; true when a row changed. */
export function cacheUncomputedResults(sheet: SheetXml, tab: CellTab, date1904: boolean): boolean {
  if (tab.formulas.size === 0) return false;
  const cells = snapshotCells(tab, date1904, () => undefined);
  let changed = false;
  for (const slot of sheet.allRows()) {
    if (slot.number <= tab.headerRow || !FORMULA.test(slot.xml)) continue;
    const row = parseRow(slot.xml, sheet.prefix);
    let rowChanged = false;
    for (const cell of row.cells) {
      const f = FORMULA_TAG.exec(cell.xml)?.[0];
      if (f === undefined || (f.includes('dataTable') && getAttr(f, 't') === 'dataTable')) continue;
      if (hasResult(cell.xml)) continue;
      const result = asResult(cells.value(slot.number, cell.column));
      if (!result) continue;
      const next = withCachedResult(cell.xml, result, sheet.prefix);
      if (next === cell.xml) continue;
      cell.xml = next;
      rowChanged = true;
    }
    if (rowChanged) {
      slot.xml = rowToXml(row, sheet.prefix);
      changed = true;
    }
  }
  if (changed) sheet.changed = true;
  return changed;
}
