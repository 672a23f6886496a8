/**
 * What each formula of a tab reads, worked out before the write that needs it, a slice at a time. The first
 * write to a tab with a formula in every row of 100,000 looked every formula over in one go on the service's
 * thread (the recalculation's index and what each formula reads, about 250 ms, and the formula library's load,
 * about 55 ms), and every read arriving then waited for it. The write's preparation (OoxmlDocument.prepare) now does it in
 * slices of a few milliseconds with reads answered between them; the recalculation finds it done, and a delete
 * carries it over to the tab's new map of formulas (formula-index-carry.ts). Not behind a read (a document
 * prepared ahead): what each formula reads is held per formula (an array of row spans), which a file that is only
 * read need not hold.
 */
import { setImmediate } from 'node:timers/promises';
import { formulaLibrary } from '../formulas/parser.ts';
import { type FormulaIndex, formulaIndex } from './formula-index.ts';
import { readersMade, readersOf } from './formula-readers.ts';
import type { OpenWorkbook } from './open-workbook.ts';
import { formulaContext } from './recalc-after-write.ts';
import { type PrecedentsFinder, precedentsFinder } from './recalculation.ts';

/** How long one slice holds the service's thread before reads waiting are answered. */
const SLICE_MS = 8;

/**
 * The workbook's formulas looked over as the recalculation after a write to the tab will look them over (it
 * looks at every tab's), unless they were already.
 */
export async function warmFormulas(wb: OpenWorkbook, sourceSheetId: string): Promise<void> {
  const { book, held } = wb;
  // The tab as the write will read it (held.get reads it now if no read brought it): it says whether it has any.
  if (!book.find(sourceSheetId) || !held.get(sourceSheetId) || held.withFormulas.size === 0) return;
  let precedents: PrecedentsFinder | undefined;
  for (const tab of book.list) {
    // Every tab, as the recalculation reads them all (held.all) once any has formulas.
    const snapshot = held.get(tab.entry.sheetId);
    if (!snapshot || !held.withFormulas.has(tab.entry.sheetId)) continue;
    if (snapshot.formulas.size + snapshot.headerFormulas.size === 0) continue;
    const sheet = tab.entry.name.toLowerCase();
    const index = formulaIndex(snapshot, sheet);
    if (readersMade(index)) continue;
    if (!precedents) {
      formulaLibrary();
      await setImmediate();
      // The names as the workbook holds them now: a write does not add or remove any.
      precedents = precedentsFinder(formulaContext(wb));
    }
    await lookOver(index, sheet, precedents);
  }
}

/** What each formula of the index reads, a slice at a time, then the index's readers (formula-readers.ts). */
async function lookOver(index: FormulaIndex, sheet: string, precedents: PrecedentsFinder): Promise<void> {
  let sliceStart = performance.now();
  for (let i = 0; i < index.cells.length; i++) {
    precedents(index.cells[i]!, sheet);
    if ((i & 1023) === 1023 && performance.now() - sliceStart > SLICE_MS) {
      await setImmediate();
      sliceStart = performance.now();
    }
  }
  readersOf(index, (cell) => precedents(cell, sheet));
}
