/**
 * Formulas the file holds without a result (openpyxl, pandas and most generators write them so) read as the
 * result the service computed when it read the file. The first write to such a workbook stores those results
 * in the file as the formulas' cached values, for every data row of every tab, not only for the formulas the
 * write reached: from then on a program that does not calculate reads every formula as the API does. Once per
 * version of the file another program saved; a later write finds nothing to do.
 *
 * The results are worked out here; storing them is a move of the sheet's rows (row-piece.ts): a piece that is
 * open takes them now, a closed one when it is next written, on a piece thread (piece-rewrite.ts). A tab with a
 * formula in every row of 100,000 held the service's thread a second and more when every piece was opened here.
 */
import type { Pace } from '../../../lib/pacer.ts';
import type { CellTab } from '../cell-tab.ts';
import type { FormulaResult } from '../formulas/evaluator.ts';
import { formulaLibrary } from '../formulas/parser.ts';
import { snapshotCells } from '../formulas/snapshot-cells.ts';
import { firstOfRow, resultsRowRewrite } from './cached-result.ts';
import type { PortableRewrite, RowResult } from './row-slots.ts';
import type { SheetXml } from './sheet-xml.ts';

function asResult(value: unknown): FormulaResult | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return { kind: 'number', value };
  if (typeof value === 'boolean') return { kind: 'boolean', value };
  if (typeof value === 'string') return value === '' ? undefined : { kind: 'text', value };
  if (value instanceof formulaLibrary().FormulaError) return { kind: 'error', value: value.error };
  return undefined;
}

/** Stores the held results of the data rows' formulas that have none in the sheet; true when there were any. */
export async function cacheUncomputedResults(
  sheet: SheetXml,
  tab: CellTab,
  date1904: boolean,
  pace: Pace,
): Promise<boolean> {
  const results = heldResults(tab, date1904);
  if (results.length === 0) return false;
  const { prefix } = sheet;
  await sheet.moveRowsPaced(
    {
      rewrite: resultsRowRewrite(prefix, results),
      numbering: (number) => number,
      unchangedAbove: 0,
      portable: (first, last) => {
        const within = results.slice(firstOfRow(results, first), firstOfRow(results, last + 1));
        return within.length === 0 ? null : ({ kind: 'results', prefix, results: within } as PortableRewrite);
      },
    },
    pace,
  );
  sheet.changed = true;
  return true;
}

/** The results the service holds for the tab's data formulas, in sheet order (by row, then column). */
function heldResults(tab: CellTab, date1904: boolean): RowResult[] {
  if (tab.formulas.size === 0) return [];
  const cells = snapshotCells(tab, date1904, () => undefined);
  const width = tab.header.length;
  const results: RowResult[] = [];
  // A typed array sorts numbers as numbers, without a comparator called per pair.
  for (const at of Float64Array.from(tab.formulas.keys()).sort()) {
    const row = tab.headerRow + 1 + Math.floor(at / width);
    const column = (at % width) + 1;
    const result = asResult(cells.value(row, column));
    if (result) results.push({ row, column, result });
  }
  return results;
}
