/**
 * A webhook's condition applied to one recorded change of its tab (docs/api.md, "Conditional webhooks"): the
 * changed rows it notifies. `columns` keeps an update only when one of those columns changed (inserts and deletes
 * always qualify); `where` keeps a row that matches it before or after the change. `where` is the list routes'
 * own evaluation (rows/where), run on the changed rows' values, so a condition means what the same `where` means
 * on `GET /rows`. A column the tab lacks (renamed or removed since registration) reads as an empty cell.
 */
import type { RowChange } from '../diff/row-diff.ts';
import { AppError } from '../errors.ts';
import { RecentValues } from '../lib/recent-values.ts';
import type { WebhookCondition } from '../repositories/webhooks.ts';
import { stringForm } from '../rows/match.ts';
import { whereColumns, whereRowsNow } from '../rows/where/evaluate.ts';
import type { WhereExpression } from '../rows/where/expression.ts';
import { parseWhere } from '../rows/where/parse.ts';
import type { CellValue } from '../sources/source.ts';

/**
 * A condition as given (a blank `where` is none), checked against the tab's header: `where` parsed (its 400
 * points at a position), every column it and `columns` name in the header (400 `unknown_field`). Null when it
 * asks nothing.
 */
export function checkedCondition(
  given: WebhookCondition,
  header: readonly string[],
): WebhookCondition | null {
  const where = given.where?.trim() ? given.where : null;
  const columns = given.columns && given.columns.length > 0 ? given.columns : null;
  const columnOf = (name: string): number | undefined => {
    const col = header.indexOf(name);
    return col < 0 ? undefined : col;
  };
  if (where !== null) whereColumns(parseWhere(where), columnOf);
  for (const name of columns ?? []) {
    if (columnOf(name) === undefined) {
      throw new AppError(
        'unknown_field',
        `Unknown field "${name}" in columns. Field names are case-sensitive and must match the header.`,
        { field: name, parameter: 'columns' },
      );
    }
  }
  return where === null && columns === null ? null : { where, columns };
}

/** The changes that qualify, in their order; all of them without a condition. */
export function qualifyingChanges(
  changes: readonly RowChange[],
  oldHeader: readonly string[],
  newHeader: readonly string[],
  condition: WebhookCondition | null,
): readonly RowChange[] {
  if (!condition) return changes;
  let kept = changes;
  const { columns, where } = condition;
  if (columns) kept = kept.filter((c) => c.kind !== 'updated' || touches(c, oldHeader, newHeader, columns));
  if (where && kept.length > 0) {
    const expression = parsedWhere(where);
    const before = matching(
      expression,
      oldHeader,
      kept.map((c) => c.before),
    );
    const after = matching(
      expression,
      newHeader,
      kept.map((c) => c.after),
    );
    kept = kept.filter((_, i) => before[i] === 1 || after[i] === 1);
  }
  return kept;
}

/** Whether an update changed one of `columns`, each read by name from its side's header. */
function touches(
  change: RowChange,
  oldHeader: readonly string[],
  newHeader: readonly string[],
  columns: readonly string[],
): boolean {
  return columns.some(
    (name) => cellNamed(change.before, oldHeader, name) !== cellNamed(change.after, newHeader, name),
  );
}

function cellNamed(row: readonly CellValue[] | null, header: readonly string[], name: string): CellValue {
  const col = header.indexOf(name);
  return row === null || col < 0 ? null : (row[col] ?? null);
}

/** 1 for each row (null: the side a change lacks, never a match) that `expression` keeps. */
function matching(
  expression: WhereExpression,
  header: readonly string[],
  rows: readonly (readonly CellValue[] | null)[],
): Uint8Array {
  const names = [...header];
  const columnOf = new Map(names.map((name, col) => [name, col]));
  // A column the header lacks is one more column of empty cells.
  const lookUp = (name: string): number => {
    if (!columnOf.has(name)) columnOf.set(name, names.push(name) - 1);
    return columnOf.get(name)!;
  };
  const columns = whereColumns(expression, lookUp);
  const typed = rows.map((row) => names.map((_, col) => row?.[col] ?? null));
  const formatted = typed.map((row) => row.map(stringForm));
  const marks = new Uint8Array(rows.length);
  for (const r of whereRowsNow({ header: names, typed, formatted }, expression, columns)) {
    if (rows[r] !== null) marks[r] = 1;
  }
  return marks;
}

/** Parsed conditions, by text: each change of a watched tab reads them again. */
const parsed = new RecentValues<WhereExpression>(256, Number.POSITIVE_INFINITY);

function parsedWhere(text: string): WhereExpression {
  return parsed.get(text, () => parseWhere(text));
}
