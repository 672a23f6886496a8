/**
 * After a write: the formulas whose inputs the write may have changed are computed again, and their results
 * written into the sheets as cached values (so readers that do not calculate see them too). Which formulas:
 * those in rows the write touched, those whose references reach such rows (precedentsOf in
 * formulas/formula-text.ts), and so on down the chain; a formula whose inputs its text cannot show (a defined
 * name, a table, INDIRECT, TODAY) is always computed again. Every other cell, and every other row's bytes,
 * stay as they were.
 */
import type { Pace } from '../../../lib/pacer.ts';
import type { CellTab } from '../cell-tab.ts';
import { type DefinedName, type FormulaResult, WorkbookEvaluator } from '../formulas/evaluator.ts';
import { type Precedents, precedentsOf } from '../formulas/formula-text.ts';
import { snapshotCells } from '../formulas/snapshot-cells.ts';
import type { TableInfo } from '../formulas/structured-refs.ts';
import { withCachedResult } from './cached-result.ts';
import { type FormulaIndex, formulaIndex, type IndexedFormula } from './formula-index.ts';
import { formulasInRows, readersOf } from './formula-readers.ts';
import { recalcTimeUp } from './recalc-time.ts';
import { cellAt, parseRow, putCell, rowToXml } from './row-xml.ts';
import type { SheetXml } from './sheet-xml.ts';

export interface RecalcTab {
  name: string;
  snapshot: CellTab;
  sheet: () => SheetXml;
}

/** Inclusive row spans. */
export type Spans = [top: number, bottom: number][];

/** What each formula reads, worked out once: by tab name (lower-cased), then by formula text. */
export type PrecedentsMemo = Map<string, Map<string, Precedents>>;

export interface RecalcInput {
  tabs: readonly RecalcTab[];
  /** Rows whose values the write may have changed, per tab name lower-cased. */
  changed: Map<string, Spans>;
  names: readonly DefinedName[];
  tables: readonly TableInfo[];
  date1904: boolean;
  /** Precedents already worked out (kept by the document across writes). */
  precedents: PrecedentsMemo;
  /**
   * Rows were deleted: every formula whose reference the delete cut (now #REF!) or that reads row numbers
   * (ROW) is computed again too, wherever it is.
   */
  rowsMoved?: boolean;
  /** Asked between formulas: a turn for the reads waiting (lib/pacer.ts). */
  pace: Pace;
  /** When (performance.now()) the recalculation is given up, the write refused: recalcTimeUp. */
  stopAt: number;
}

interface FormulaCell {
  tab: RecalcTab;
  sheet: string;
  row: number;
  column: number;
  text: string;
}

/**
 * Rewrites the cached results of the formulas the write reached; answers the sheet rows rewritten per tab.
 * Formula by formula with reads answered between (`pace`): linear in what the formulas read, but what they read
 * is the file's to say (a "share of the total" in every row of a large tab reads the column once per row).
 */
export async function recalculate(input: RecalcInput): Promise<Map<RecalcTab, number[]>> {
  const tabs = input.tabs.map((tab) => {
    const sheet = tab.name.toLowerCase();
    return { tab, sheet, index: formulaIndex(tab.snapshot, sheet) };
  });
  const dirty = await dirtyCells(tabs, input);
  const rewritten = new Map<RecalcTab, number[]>();
  if (dirty.length === 0) return rewritten;
  const pending = new Map<string, Map<number, string>>();
  for (const cell of dirty) {
    const byCell = pending.get(cell.sheet) ?? new Map<number, string>();
    pending.set(cell.sheet, byCell);
    byCell.set(cell.row * 16_384 + cell.column, cell.text);
  }
  const evaluator = new WorkbookEvaluator(
    input.tabs.map((tab) => {
      const mine = pending.get(tab.name.toLowerCase());
      const cells = snapshotCells(tab.snapshot, input.date1904, (row, column) =>
        mine?.get(row * 16_384 + column),
      );
      return {
        ...cells,
        arrayFormula: (row: number, column: number) => isArrayFormula(tab.sheet(), row, column),
      };
    }),
    input.names,
    input.tables,
  );
  // Results gathered by row, each row then rewritten once (a row of three lookups was parsed three times).
  const results = new Map<RecalcTab, Map<number, CellResult[]>>();
  for (const cell of dirty) {
    await input.pace();
    if (performance.now() > input.stopAt) throw recalcTimeUp();
    const result = evaluator.result(cell.tab.name, cell.row, cell.column);
    if (!result) continue;
    const rows = results.get(cell.tab) ?? new Map<number, CellResult[]>();
    results.set(cell.tab, rows);
    const cells = rows.get(cell.row) ?? [];
    rows.set(cell.row, cells);
    cells.push({ column: cell.column, result });
  }
  for (const [tab, rows] of results) {
    const sheet = tab.sheet();
    const changedRows: number[] = [];
    for (const [row, cells] of rows) {
      await input.pace();
      if (writeResults(sheet, row, cells)) changedRows.push(row);
    }
    if (changedRows.length > 0) rewritten.set(tab, changedRows);
  }
  return rewritten;
}

interface CellResult {
  column: number;
  result: FormulaResult;
}

/** Most formulas one row's readers hand over between turns (a column's every COUNTIF reads each of its rows). */
const TAKE_AT_ONCE = 4_096;

interface IndexedTab {
  tab: RecalcTab;
  sheet: string;
  index: FormulaIndex;
}

/**
 * The formulas the change reaches, directly or through other formulas, in the order reached: a formula comes
 * after those it was reached through, so the evaluator (which computes a formula's inputs first, recursively)
 * seldom goes deep, even where a summary on an earlier tab reads the end of a long chain. A formula is reached
 * when a row the write changed holds it or a cell it reads, or when a cell it reads holds a formula reached; one
 * whose inputs its text cannot show always is, and after a delete so is one whose result rows moving changes
 * (these last). Each changed row, and each reached formula's cell, is followed once, through the tabs' readers
 * (formula-readers.ts), which hand each formula over once: linear in the formulas reached.
 */
async function dirtyCells(tabs: readonly IndexedTab[], input: RecalcInput): Promise<FormulaCell[]> {
  const precedents = precedentsFinder(input);
  const readers = tabs.map(({ index, sheet }) => readersOf(index, (cell) => precedents(cell, sheet)));
  const taken = tabs.map(({ index }) => new Uint8Array(index.cells.length));
  const changed = new Map([...input.changed].map(([sheet, spans]) => [sheet, merge(spans)]));
  // What to follow, first in first out: the changed spans (every column), then each reached formula's cell
  // (followed once, per tab name). One followed in part (a take stopped at TAKE_AT_ONCE) comes again for that
  // tab's band of readers alone.
  const toFollow: Follow[] = [];
  for (const [sheet, spans] of changed)
    for (const [top, bottom] of spans) toFollow.push([sheet, top, bottom, EVERY_COLUMN, -1, -1]);
  const followed = new Map<string, Set<number>>();
  const headerReached = new Uint8Array(tabs.length);
  const reached: FormulaCell[] = [];
  const seeds: FormulaCell[] = [];
  const reach = (t: number, i: number, into: FormulaCell[] = reached) => {
    const done = taken[t]!;
    if (done[i]) return;
    done[i] = 1;
    const { tab, sheet, index } = tabs[t]!;
    const { row, column, text } = index.cells[i]!;
    into.push({ tab, sheet, row, column, text });
    // A header rewritten is read back whole, and the file may hold no result for its other formulas (only the
    // data rows' held results are stored, uncomputed-results.ts): its every formula is computed with it.
    if (row === tab.snapshot.headerRow && !headerReached[t]) {
      headerReached[t] = 1;
      formulasInRows(index, row, row, (j) => reach(t, j, into));
    }
    const cells = followed.get(sheet) ?? new Set<number>();
    followed.set(sheet, cells);
    const cell = row * 16_384 + column;
    if (cells.has(cell) || overlaps(changed.get(sheet), row, row)) return;
    cells.add(cell);
    toFollow.push([sheet, row, row, column, -1, -1]);
  };
  readers.forEach((r, t) => {
    for (const i of r.always) reach(t, i, seeds);
    if (input.rowsMoved) for (const i of r.readsPlaces) reach(t, i, seeds);
  });
  try {
    // Paced too (100,000 rows of lookups reach 500,000 formulas): a write of its document is one at a time, so
    // the pools, taken from meanwhile, are this recalculation's alone until restored.
    for (let at = 0; at < toFollow.length; at++) {
      await input.pace();
      const [sheet, top, bottom, column, onlyTab, onlyBand] = toFollow[at]!;
      tabs.forEach(({ sheet: own, index }, t) => {
        if (onlyTab >= 0 && onlyTab !== t) return;
        if (own === sheet && column === EVERY_COLUMN && onlyTab < 0)
          formulasInRows(index, top, bottom, (i) => reach(t, i));
        readers[t]!.byTab.get(sheet)?.forEach(({ left, right, pool }, b) => {
          if (
            (onlyBand >= 0 && onlyBand !== b) ||
            (column !== EVERY_COLUMN && (column < left || column > right))
          )
            return;
          if (pool.take(top, bottom, (i) => reach(t, i), TAKE_AT_ONCE))
            toFollow.push([sheet, top, bottom, column, t, b]);
        });
      });
    }
  } finally {
    for (const r of readers)
      for (const bands of r.byTab.values()) for (const { pool } of bands) pool.restore();
  }
  // Those reached from them come first: what a seed reads is then mostly computed when it is.
  return reached.concat(seeds);
}

/** Rows of a tab to follow, in one column or EVERY_COLUMN; with a tab's (index) band of readers alone, or -1. */
type Follow = [sheet: string, top: number, bottom: number, column: number, onlyTab: number, onlyBand: number];
const EVERY_COLUMN = 0;

/** What a formula of a tab (its lower-cased name) reads, kept on the formula once worked out. */
export type PrecedentsFinder = (cell: IndexedFormula, sheet: string) => Precedents;

/** How the recalculation works out what a formula reads: names and tables make a formula read 'always'. */
export function precedentsFinder(
  input: Pick<RecalcInput, 'names' | 'tables' | 'precedents'>,
): PrecedentsFinder {
  const lookup = new Set<string>(input.names.map((n) => n.name.toLowerCase()));
  for (const t of input.tables) lookup.add(t.name.toLowerCase());
  return (cell, sheet) =>
    (cell.precedents ??= memoizedPrecedents(cell.text, sheet, lookup, input.precedents));
}

/** What a formula reads, worked out once per text of a sheet (a delete gives most rows a text seen before). */
function memoizedPrecedents(
  text: string,
  sheet: string,
  names: ReadonlySet<string>,
  memo: PrecedentsMemo,
): Precedents {
  let ofSheet = memo.get(sheet);
  if (!ofSheet) {
    ofSheet = new Map();
    memo.set(sheet, ofSheet);
  }
  let precedents = ofSheet.get(text);
  if (precedents === undefined) {
    precedents = precedentsOf(text, sheet, names);
    if (ofSheet.size > 200_000) ofSheet.clear();
    ofSheet.set(text, precedents);
  }
  return precedents;
}

function overlaps(spans: Spans | undefined, top: number, bottom: number): boolean {
  if (!spans) return false;
  // Spans are merged and sorted: binary search for the first that ends at or after `top`.
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid]![1] < top) lo = mid + 1;
    else hi = mid;
  }
  return lo < spans.length && spans[lo]![0] <= bottom;
}

function merge(spans: Spans): Spans {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const out: Spans = [];
  for (const [top, bottom] of sorted) {
    const last = out.at(-1);
    if (last && top <= last[1] + 1) last[1] = Math.max(last[1], bottom);
    else out.push([top, bottom]);
  }
  return out;
}

/** Sets the cells' cached results in their row; false when the row already held exactly those. */
/** Whether the cell's `<f>` is an array formula's (`t="array"`), as the sheet's row holds it. */
function isArrayFormula(sheet: SheetXml, row: number, column: number): boolean {
  const slot = sheet.row(row);
  const cell = slot && cellAt(parseRow(slot.xml, sheet.prefix), column);
  return cell !== undefined && /<(?:[\w.-]+:)?f\b[^>]*\bt="array"/.test(cell.xml);
}

function writeResults(sheet: SheetXml, row: number, cells: readonly CellResult[]): boolean {
  const slot = sheet.row(row);
  if (!slot) return false;
  const parsed = parseRow(slot.xml, sheet.prefix);
  let changed = false;
  for (const { column, result } of cells) {
    const cell = cellAt(parsed, column);
    if (!cell) continue;
    const next = withCachedResult(cell.xml, result, sheet.prefix);
    if (next === cell.xml) continue;
    putCell(parsed, column, next);
    changed = true;
  }
  if (!changed) return false;
  slot.xml = rowToXml(parsed, sheet.prefix);
  sheet.changed = true;
  return true;
}
