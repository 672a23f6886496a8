/**
 * An aggregate (docs/api.md "Aggregates"): the matching rows grouped by the typed values of up to 4 columns (an
 * empty cell is its own group, null; `5` and `'5'` are two groups, as `where`'s `=` tells them apart), and per
 * group each metric: `count` (rows), `count(col)` (non-empty cells), `count_distinct(col)` (distinct non-empty
 * values), `sum(col)` and `avg(col)` (number cells only; null when there is none), `min(col)` and `max(col)` (by
 * `sort`'s order, empty cells ignored). With no group column, one group of every matching row (a count of 0 when
 * none matches). Groups are sorted by output columns (`-count`, `sum(Total)`, a group column; by default the group
 * columns ascending, in `sort`'s order), ties in the order the groups first appear, then paged.
 *
 * One pass over the matching rows; on a large tab it lets other requests run every CHUNK rows, and the sort ranks
 * it reads are built a step at a time before it (lib/steps.ts).
 */
import { AppError } from '../../errors.ts';
import { runPaced } from '../../lib/steps.ts';
import type { CellValue } from '../../sources/source.ts';
import { rowsComplete } from '../../sources/tab-rows.ts';
import { compareFolded, foldText } from '../collation.ts';
import { column, columnOf, type TabRows } from '../engine.ts';
import type { SortKey } from '../query.ts';
import { type ColumnRanks, columnRanks, columnRanksSteps, NULL_RANK } from '../sort.ts';
import type { Metric } from './metrics.ts';

export interface AggregateSpec {
  groupBy: string[];
  metrics: Metric[];
  /** On output columns: group column names and metric names. */
  sort: SortKey[];
  limit: number;
  offset: number;
}

export interface AggregatePage {
  fields: string[];
  /** The page's groups: group column values, then each metric. */
  rows: CellValue[][];
  /** Groups in all. */
  total: number;
  /** Rows the groups were made of. */
  matched: number;
}

export const MAX_GROUP_COLUMNS = 4;
const CHUNK = 16_384;

interface Group {
  key: CellValue[];
  /** The first matching row of the group: its place for ties, its ranks for the group columns. */
  firstRow: number;
  acc: Accumulator[];
}

interface Accumulator {
  add(row: number): void;
  result(): CellValue;
}

/** Checks every name the aggregate uses against the tab (400 before any row is read). */
export function aggregateColumns(
  tab: TabRows,
  spec: AggregateSpec,
): { groupCols: number[]; metricCols: number[] } {
  if (spec.groupBy.length > MAX_GROUP_COLUMNS) {
    throw new AppError(
      'invalid_parameter',
      `Parameter "group_by" takes at most ${MAX_GROUP_COLUMNS} columns.`,
      {
        parameter: 'group_by',
      },
    );
  }
  const groupCols = spec.groupBy.map((name) => column(tab, name, 'group_by'));
  const metricCols = spec.metrics.map((m) => {
    if (!m.column) return -1;
    const col = columnOf(tab, m.column.name);
    if (col !== undefined) return col;
    throw new AppError('unknown_field', `Unknown field "${m.column.name}" in metrics (${m.name}).`, {
      field: m.column.name,
      parameter: 'metrics',
      position: m.column.position,
    });
  });
  const outputs = new Set([...spec.groupBy, ...spec.metrics.map((m) => m.name)]);
  for (const key of spec.sort) {
    if (!outputs.has(key.field)) {
      throw new AppError(
        'unknown_field',
        `Unknown field "${key.field}" in sort: an aggregate sorts by its group columns and metrics (${[...outputs].join(', ')}).`,
        { field: key.field, parameter: 'sort' },
      );
    }
  }
  return { groupCols, metricCols };
}

/** `rows`: the matching rows, ascending (null: every row). */
export async function aggregate(
  tab: TabRows,
  rows: Uint32Array | null,
  spec: AggregateSpec,
): Promise<AggregatePage> {
  const { groupCols, metricCols } = aggregateColumns(tab, spec);
  await rowsComplete([tab]); // every row is read
  const typed = tab.typed;
  // The sort ranks the groups' order and `min`/`max` read, built a step at a time before the pass needs them.
  const ranked = [
    ...groupCols,
    ...metricCols.filter((_, i) => ['min', 'max'].includes(spec.metrics[i]!.kind)),
  ];
  for (const col of new Set(ranked)) await runPaced(columnRanksSteps(tab, col, 'typed'));
  const matched = rows ? rows.length : typed.length;
  const rowAt = rows ? (i: number) => rows[i]! : (i: number) => i;
  const groups: Group[] = [];
  const tree = new Map<CellValue, unknown>();
  const newGroup = (key: CellValue[], firstRow: number): Group => {
    const group = { key, firstRow, acc: spec.metrics.map((m, i) => accumulator(tab, m, metricCols[i]!)) };
    groups.push(group);
    return group;
  };
  const single: Group | null = groupCols.length === 0 ? newGroup([], 0) : null;
  // Nested maps, one level a group column: the typed values themselves are the keys (5 is not '5').
  const groupOf = (row: number): Group => {
    let level = tree;
    for (let g = 0; g < groupCols.length - 1; g++) {
      const v = typed[row]![groupCols[g]!] ?? null;
      let next = level.get(v) as Map<CellValue, unknown> | undefined;
      if (!next) {
        next = new Map();
        level.set(v, next);
      }
      level = next;
    }
    const last = typed[row]![groupCols.at(-1)!] ?? null;
    let group = level.get(last) as Group | undefined;
    if (!group) {
      group = newGroup(
        groupCols.map((c) => typed[row]![c] ?? null),
        row,
      );
      level.set(last, group);
    }
    return group;
  };
  for (let start = 0; start < matched; start += CHUNK) {
    if (start > 0) await new Promise<void>((go) => setImmediate(go));
    const end = Math.min(matched, start + CHUNK);
    for (let i = start; i < end; i++) {
      const row = rowAt(i);
      const group = single ?? groupOf(row);
      for (const acc of group.acc) acc.add(row);
    }
  }
  const fields = [...spec.groupBy, ...spec.metrics.map((m) => m.name)];
  const ordered = sortGroups(tab, groups, spec, groupCols);
  const page = ordered.slice(spec.offset, spec.offset + spec.limit);
  return {
    fields,
    rows: page.map((g) => [...g.key, ...g.acc.map((a) => a.result())]),
    total: groups.length,
    matched,
  };
}

function accumulator(tab: TabRows, metric: Metric, col: number): Accumulator {
  const typed = tab.typed;
  const cell = (row: number): CellValue => typed[row]![col] ?? null;
  switch (metric.kind) {
    case 'count': {
      let n = 0;
      if (col < 0) return { add: () => void n++, result: () => n };
      return { add: (row) => void (cell(row) !== null && n++), result: () => n };
    }
    case 'count_distinct': {
      const seen = new Set<CellValue>();
      return { add: (row) => void (cell(row) !== null && seen.add(cell(row))), result: () => seen.size };
    }
    case 'sum':
    case 'avg': {
      let sum = 0;
      let n = 0;
      return {
        add(row) {
          const v = cell(row);
          if (typeof v !== 'number') return;
          sum += v;
          n++;
        },
        result: () => (n === 0 ? null : spreadsheetPrecision(metric.kind === 'sum' ? sum : sum / n)),
      };
    }
    case 'min':
    case 'max': {
      const ranks = columnRanks(tab, col, 'typed').ranks;
      let best = -1;
      return {
        add(row) {
          const r = ranks[row]!;
          if (r === NULL_RANK) return;
          if (best < 0 || (metric.kind === 'min' ? r < ranks[best]! : r > ranks[best]!)) best = row;
        },
        result: () => (best < 0 ? null : cell(best)),
      };
    }
  }
}

/**
 * A sum or mean to 15 significant digits, the precision a spreadsheet computes and shows: adding 442.12 and its
 * like in binary floating point leaves `8026.579999999999` where Excel and Google Sheets show `8026.58`.
 */
function spreadsheetPrecision(x: number): number {
  return Number(x.toPrecision(15));
}

/** The groups in the order `spec.sort` asks (default: the group columns ascending), ties by first appearance. */
function sortGroups(tab: TabRows, groups: Group[], spec: AggregateSpec, groupCols: number[]): Group[] {
  const keys: SortKey[] =
    spec.sort.length > 0 ? spec.sort : spec.groupBy.map((field) => ({ field, descending: false }));
  const compares = keys.map((key) => {
    const g = spec.groupBy.indexOf(key.field);
    const direction = key.descending ? -1 : 1;
    if (g >= 0) {
      const ranks: ColumnRanks['ranks'] = columnRanks(tab, groupCols[g]!, 'typed').ranks;
      return (a: Group, b: Group) => byRank(ranks[a.firstRow]!, ranks[b.firstRow]!, direction);
    }
    const m = spec.metrics.findIndex((metric) => metric.name === key.field);
    const results = new Map(groups.map((group) => [group, group.acc[m]!.result()]));
    return (a: Group, b: Group) => byValue(results.get(a)!, results.get(b)!, direction);
  });
  return [...groups].sort((a, b) => {
    for (const compare of compares) {
      const c = compare(a, b);
      if (c !== 0) return c;
    }
    return a.firstRow - b.firstRow;
  });
}

/** Empty last in both directions, as `sort`. */
function byRank(a: number, b: number, direction: number): number {
  if (a === b) return 0;
  if (a === NULL_RANK) return 1;
  if (b === NULL_RANK) return -1;
  return (a - b) * direction;
}

/** `sort`'s order over any values: numbers, then text (folded, collated), then false, true; null last. */
function byValue(a: CellValue, b: CellValue, direction: number): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const rank = (v: CellValue) => (typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : v ? 3 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return (ra - rb) * direction;
  if (typeof a === 'number') return (a - (b as number)) * direction;
  if (typeof a === 'string') return compareFolded(foldText(a), foldText(b as string)) * direction;
  return 0;
}
