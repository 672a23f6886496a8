/**
 * The rows a `where` keeps (docs/api.md "Querying"), on the tab's typed values whatever `values` asks for the
 * output, in two-valued logic:
 * - `=`, `<`, `<=`, `>`, `>=`, `between` (inclusive) and `in` hold only for a cell that is not empty and has the
 *   literal's type: a number against a number, a text against a string, a boolean against true / false (false
 *   before true). Text `=` is the exact text; text order is `sort`'s (folded, then the collation: sort.ts), so the
 *   rows where `Name >= 'm'` are a tail of `sort=Name`. Dates are ISO text, so they order as text.
 * - `contains`, `starts with`, `ends with` fold case and accents as `search` does, on any value's text (an empty
 *   cell's is ''); `is null` is an empty cell. Every `not` is the exact complement.
 *
 * Each predicate marks its rows in one pass over the column (text ranges through the column's cached sort ranks,
 * the text matches through its cached search index, once per distinct value), and `and`, `or`, `not` combine the
 * marks. On a large tab every pass, and the first build of a column's index or ranks, runs a step at a time
 * (lib/steps.ts), so other requests wait at most a step; only the sorts of a column's distinct values (in a
 * first range over it) run at once.
 */
import { AppError } from '../../errors.ts';
import { runNow, runPaced, STEP_MASK, STEP_ROWS, type Steps } from '../../lib/steps.ts';
import type { CellValue } from '../../sources/source.ts';
import { foldText } from '../collation.ts';
import { matchRowsSteps, rowsWhereFolded, rowsWithForms, stringForm } from '../match.ts';
import { numberOrderSteps, numberRange } from '../number-order.ts';
import { columnRanksSteps, textRankRange } from '../sort.ts';
import type { ColumnRef, CompareOp, Literal, Predicate, WhereExpression } from './expression.ts';

/** What a `where` reads of a tab; a TabSnapshot has it. */
export interface WhereTab {
  header: string[];
  typed: CellValue[][];
  formatted: string[][];
}

/** Above this many rows, the evaluation lets other work run between predicates. */
const PACED_ROWS = 50_000;

/** One mark per row: 1 kept. */
type Marks = Uint8Array;

/**
 * Every column the expression names, as the tab's column index: 400 `unknown_field` for the first one the tab
 * lacks (with its position in the text), checked before any row is read.
 */
export function whereColumns(
  expression: WhereExpression,
  columnOf: (name: string) => number | undefined,
): Map<string, number> {
  const columns = new Map<string, number>();
  const visit = (node: WhereExpression): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        node.items.forEach(visit);
        return;
      case 'not':
        visit(node.item);
        return;
      default:
        if (!columns.has(node.column.name)) columns.set(node.column.name, resolve(node.column, columnOf));
    }
  };
  visit(expression);
  return columns;
}

function resolve(ref: ColumnRef, columnOf: (name: string) => number | undefined): number {
  const col = columnOf(ref.name);
  if (col !== undefined) return col;
  throw new AppError(
    'unknown_field',
    `Unknown field "${ref.name}" in where (position ${ref.position}). Field names are case-sensitive and must match the header.`,
    { field: ref.name, parameter: 'where', position: ref.position },
  );
}

/**
 * The rows (0-based, ascending) `expression` keeps; `columns` is whereColumns's answer. Paced on a large tab:
 * other work runs between the steps of every pass (lib/steps.ts), a first search index included.
 */
export function whereRows(
  tab: WhereTab,
  expression: WhereExpression,
  columns: Map<string, number>,
): Promise<Uint32Array> {
  const steps = evaluation(tab, expression, columns);
  return tab.typed.length > PACED_ROWS ? runPaced(steps) : Promise.resolve(runNow(steps));
}

/** The same rows at once, for a write that must decide inside its turn (a write by filter). */
export function whereRowsNow(
  tab: WhereTab,
  expression: WhereExpression,
  columns: Map<string, number>,
): Uint32Array {
  return runNow(evaluation(tab, expression, columns));
}

/** Sets `marks[r]` to `f(r)`'s answer for every row, a step at a time. */
function* eachRow(n: number, f: (r: number) => void): Steps<void> {
  for (let from = 0; from < n; from += STEP_ROWS) {
    const to = Math.min(n, from + STEP_ROWS);
    for (let r = from; r < to; r++) f(r);
    if (to < n) yield;
  }
}

/** The evaluation, a step at a time: each predicate's pass and each combination yield every STEP_ROWS rows. */
function* evaluation(
  tab: WhereTab,
  expression: WhereExpression,
  columns: Map<string, number>,
): Steps<Uint32Array> {
  const n = tab.typed.length;
  function* marksOf(node: WhereExpression): Steps<Marks> {
    switch (node.kind) {
      case 'and':
      case 'or': {
        const marks = yield* marksOf(node.items[0]!);
        const and = node.kind === 'and';
        for (const item of node.items.slice(1)) {
          const other = yield* marksOf(item);
          for (let r = 0; r < n; r++) {
            if ((r & STEP_MASK) === STEP_MASK) yield;
            marks[r] = and ? marks[r]! & other[r]! : marks[r]! | other[r]!;
          }
        }
        return marks;
      }
      case 'not': {
        const marks = yield* marksOf(node.item);
        for (let r = 0; r < n; r++) {
          if ((r & STEP_MASK) === STEP_MASK) yield;
          marks[r]! ^= 1;
        }
        return marks;
      }
      default:
        yield;
        return yield* predicateMarks(tab, node, columns.get(node.column.name)!);
    }
  }
  const marks = yield* marksOf(expression);
  let count = 0;
  for (let r = 0; r < n; r++) count += marks[r]!;
  yield;
  const rows = new Uint32Array(count);
  for (let r = 0, k = 0; r < n; r++) {
    if ((r & STEP_MASK) === STEP_MASK) yield;
    if (marks[r] === 1) rows[k++] = r;
  }
  return rows;
}

function* predicateMarks(tab: WhereTab, p: Predicate, col: number): Steps<Marks> {
  const { typed } = tab;
  const n = typed.length;
  const marks = new Uint8Array(n);
  const cellAt = (r: number): CellValue => typed[r]![col] ?? null;
  switch (p.kind) {
    case 'compare':
      if (p.op === '=') yield* markEqual(tab, col, [p.value], marks);
      else yield* markCompare(tab, col, p.op, p.value, marks);
      return marks;
    case 'between': {
      if (typeof p.low === 'number' && typeof p.high === 'number') {
        // One slice of the number order: from the first number >= low to the last <= high.
        const order = yield* numberOrderSteps(typed, col);
        const from = numberRange(order, p.low, '>=')[0];
        const to = numberRange(order, p.high, '<=')[1];
        yield* markSlice(order.rows, from, to, marks);
        return marks;
      }
      yield* markCompare(tab, col, '>=', p.low, marks);
      const high = new Uint8Array(n);
      yield* markCompare(tab, col, '<=', p.high, high);
      yield* eachRow(n, (r) => (marks[r]! &= high[r]!));
      return marks;
    }
    case 'in':
      yield* markEqual(tab, col, p.values, marks);
      return marks;
    case 'null':
      yield* eachRow(n, (r) => {
        if (cellAt(r) === null) marks[r] = 1;
      });
      return marks;
    case 'text': {
      const needle = foldText(p.value);
      if (needle === '') return marks.fill(1);
      const spec = { owner: typed, rowCount: n, col, read: (r: number, c: number) => typed[r]![c] ?? null };
      const rows =
        p.match === 'contains'
          ? yield* matchRowsSteps({ ...spec, exact: false, value: p.value })
          : yield* rowsWhereFolded(spec, (f) =>
              p.match === 'starts with' ? f.startsWith(needle) : f.endsWith(needle),
            );
      for (let i = 0; i < rows.length; i++) marks[rows[i]!] = 1;
      return marks;
    }
  }
}

/** Marks the rows of `rows[from .. to)` (none when the slice is empty). */
function* markSlice(rows: Uint32Array, from: number, to: number, marks: Marks): Steps<void> {
  for (let i = from; i < to; i++) {
    if (((i - from) & STEP_MASK) === STEP_MASK) yield;
    marks[rows[i]!] = 1;
  }
}

/**
 * Marks the cells equal to one of `values`, of its type (5 is not '5'): the column's exact index (built once per
 * snapshot) gives the rows of each value's text form by hash, and only those are checked for their type.
 */
function* markEqual(tab: WhereTab, col: number, values: readonly Literal[], marks: Marks): Steps<void> {
  const { typed } = tab;
  const spec = {
    owner: typed,
    rowCount: typed.length,
    col,
    read: (r: number, c: number) => typed[r]![c] ?? null,
  };
  const wanted = new Set<Literal>(values);
  const rows = yield* rowsWithForms(spec, values.map(stringForm));
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const v = typed[r]![col] ?? null;
    if (v !== null && wanted.has(v)) marks[r] = 1;
  }
}

/**
 * Marks the cells of the literal's type that stand to it as `op` says. A number range takes its slice of the
 * column's number order (number-order.ts: two binary searches, then only the rows in range); a text range reads
 * the column's sort ranks (one pass over a compact array). Both are built once per snapshot, a step at a time.
 */
function* markCompare(tab: WhereTab, col: number, op: CompareOp, value: Literal, marks: Marks): Steps<void> {
  if (typeof value === 'number' && op !== '=') {
    const order = yield* numberOrderSteps(tab.typed, col);
    const [from, to] = numberRange(order, value, op);
    yield* markSlice(order.rows, from, to, marks);
    return;
  }
  if (typeof value === 'string' && op !== '=') {
    const ranks = yield* columnRanksSteps(tab, col, 'typed');
    const [from, to] = textRankRange(ranks, value, op);
    const of = ranks.ranks;
    yield* eachRow(tab.typed.length, (r) => {
      const rank = of[r]!;
      if (rank >= from && rank < to) marks[r] = 1;
    });
    return;
  }
  const { typed } = tab;
  const type = typeof value;
  const wanted = typeof value === 'boolean' ? Number(value) : value;
  yield* eachRow(typed.length, (r) => {
    const v = typed[r]![col] ?? null;
    if (v === null || typeof v !== type) return;
    if (op === '=') {
      if (v === value) marks[r] = 1;
      return;
    }
    const x = typeof v === 'boolean' ? Number(v) : (v as number);
    if (holds(x, op, wanted as number)) marks[r] = 1;
  });
}

function holds(x: number, op: CompareOp, y: number): boolean {
  switch (op) {
    case '=':
      return x === y;
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
}
