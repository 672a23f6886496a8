/**
 * After a write: the formulas whose inputs the write may have changed are computed again, and their results
 * written into the sheets as cached values (so readers that do not calculate see them too). Which formulas:
 * those in rows the write touched, those whose references reach such rows (precedentsOf in
 * formulas/formula-text.ts), and so on down the chain; a formula whose inputs its text cannot show (a defined
 * name, a table, INDIRECT, TODAY) is always computed again. Every other cell, and every other row's bytes,
 * stay as they were.
 */
import type { CellTab } from '../cell-tab.ts';
import { type DefinedName, type FormulaResult, WorkbookEvaluator } from '../formulas/evaluator.ts';
import { type Precedents, precedentsOf } from '../formulas/formula-text.ts';
import { snapshotCells } from '../formulas/snapshot-cells.ts';
import type { TableInfo } from '../formulas/structured-refs.ts';
import { withCachedResult } from './cached-result.ts';
import { boundsOf, type FormulaIndex, formulaIndex, type IndexedFormula } from './formula-index.ts';
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
}

interface FormulaCell {
  tab: RecalcTab;
  sheet: string;
  row: number;
  column: number;
  text: string;
}

/** Rewrites the cached results of the formulas the write reached; answers the sheet rows rewritten per tab. */
export function recalculate(input: RecalcInput): Map<RecalcTab, number[]> {
  const tabs = input.tabs.map((tab) => {
    const sheet = tab.name.toLowerCase();
    return { tab, sheet, index: formulaIndex(tab.snapshot, sheet) };
  });
  const dirty = dirtyCells(tabs, input);
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
      return snapshotCells(tab.snapshot, input.date1904, (row, column) => mine?.get(row * 16_384 + column));
    }),
    input.names,
    input.tables,
  );
  for (const cell of dirty) {
    const result = evaluator.result(cell.tab.name, cell.row, cell.column);
    if (result && writeResult(cell.tab.sheet(), cell.row, cell.column, result)) {
      const rows = rewritten.get(cell.tab) ?? [];
      if (rows.at(-1) !== cell.row) rows.push(cell.row);
      rewritten.set(cell.tab, rows);
    }
  }
  return rewritten;
}

interface IndexedTab {
  tab: RecalcTab;
  sheet: string;
  index: FormulaIndex;
}

/**
 * The formulas the change reaches, directly or through other formulas, in the order found (sheet order within
 * a round). Each round looks only at the rows the round before reached (a formula not reached yet cannot be
 * reached by rows it already saw). A formula that reads only its own tab is first held against the rows it
 * reads at most (formula-index.ts `boundsOf`): most are passed over on two numbers.
 */
function dirtyCells(tabs: readonly IndexedTab[], input: RecalcInput): FormulaCell[] {
  let frontier = new Map<string, Spans>();
  for (const [sheet, spans] of input.changed) frontier.set(sheet, merge(spans));
  const precedents = precedentsFinder(input);
  const taken = tabs.map(({ index }) => new Uint8Array(index.cells.length));
  const dirty: FormulaCell[] = [];
  let firstRound = true;
  while (frontier.size > 0) {
    const reached = new Map<string, Spans>();
    tabs.forEach(({ tab, sheet, index }, t) => {
      const done = taken[t]!;
      const bounds = boundsOf(index, (cell) => precedents(cell, sheet));
      const own = frontier.get(sheet);
      const moved = firstRound && input.rowsMoved === true;
      for (let i = 0; i < index.cells.length; i++) {
        if (done[i]) continue;
        const cell = index.cells[i]!;
        let hit: boolean;
        if (moved && bounds.readsPlaces[i]) hit = true;
        else if (bounds.elsewhere[i]) hit = reaches(cell, sheet, frontier, precedents(cell, sheet));
        else
          hit =
            own !== undefined &&
            (overlaps(own, cell.row, cell.row) ||
              (overlaps(own, bounds.top[i]!, bounds.bottom[i]!) &&
                reaches(cell, sheet, frontier, precedents(cell, sheet))));
        if (!hit) continue;
        done[i] = 1;
        dirty.push({ tab, sheet, row: cell.row, column: cell.column, text: cell.text });
        const spans = reached.get(sheet) ?? [];
        spans.push([cell.row, cell.row]);
        reached.set(sheet, spans);
      }
    });
    frontier = new Map([...reached].map(([sheet, spans]) => [sheet, merge(spans)]));
    firstRound = false;
  }
  return dirty;
}

function reaches(
  cell: IndexedFormula,
  sheet: string,
  changed: Map<string, Spans>,
  precedents: Precedents,
): boolean {
  if (overlaps(changed.get(sheet), cell.row, cell.row)) return true;
  if (precedents === 'always') return true;
  for (const p of precedents) if (overlaps(changed.get(p.sheet), p.top, p.bottom)) return true;
  return false;
}

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

/** Sets the cell's cached result in its row; false when the row already held exactly that. */
function writeResult(sheet: SheetXml, row: number, column: number, result: FormulaResult): boolean {
  const slot = sheet.row(row);
  if (!slot) return false;
  const parsed = parseRow(slot.xml, sheet.prefix);
  const cell = cellAt(parsed, column);
  if (!cell) return false;
  const next = withCachedResult(cell.xml, result, sheet.prefix);
  if (next === cell.xml) return false;
  putCell(parsed, column, next);
  slot.xml = rowToXml(parsed, sheet.prefix);
  sheet.changed = true;
  return true;
}
