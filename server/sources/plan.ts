/**
 * Validation of a mutation batch against the tab as it is now, independent of the file kind. The whole
 * batch is checked before anything is applied, so a bad mutation anywhere leaves the file untouched.
 * The result is a plan in column indexes and original row numbers that the .xlsx and .csv writers apply
 * in the same order: updates in place, deletes bottom-up, appends after the last data row.
 * Errors carry the failing mutation's position as data (`details.index`), never in the message.
 */

import { AppError } from '../errors.ts';
import { quantity } from '../lib/quantity.ts';
import { assertShownAsDate } from './cell-rules.ts';
import type { DateTarget, DateTargets } from './date-cells.ts';
import { type InputOptions, interpretInput } from './input.ts';
import { changedCells } from './round-trip.ts';
import type { CellInput, TabSnapshot } from './source.ts';
import { rowCountOf } from './tab-rows.ts';

export interface CellWrite {
  /** 0-based index into the plan's header (column A = 0). */
  column: number;
  value: CellInput;
  /** The field that named the cell, and its mutation's position in the batch (for errors about it). */
  field?: string;
  index?: number;
}

/** What planning needs to know of the write beyond the tab: its input options, and where dates are. */
export interface PlanContext {
  options: InputOptions;
  /** The kind's date cells; a kind without date cells (a .csv file) has none. */
  dates?: DateTargets | undefined;
}

export interface WritePlan {
  /** Header after the write: the tab's header, or the new one for an empty tab. */
  header: string[];
  /** The tab had no header: write `header` as row 1 before the appended rows. */
  newHeader: boolean;
  /** API row numbers (before the batch); several updates to one row are merged in order. */
  updates: { row: number; cells: CellWrite[] }[];
  /** API row numbers (before the batch), descending so each delete leaves the next numbers valid. */
  deletes: number[];
  appends: CellWrite[][];
  counts: { appended: number; updated: number; deleted: number };
}

type Values = Record<string, CellInput>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkValues(values: unknown, index: number): Values {
  if (!isPlainObject(values)) throw new AppError('invalid_body', '"values" must be an object.', { index });
  for (const [field, v] of Object.entries(values)) {
    const ok =
      v === null ||
      typeof v === 'string' ||
      typeof v === 'boolean' ||
      (typeof v === 'number' && Number.isFinite(v));
    if (!ok) {
      throw new AppError('invalid_body', `Field "${field}" must be a string, number, boolean or null.`, {
        field,
        index,
      });
    }
  }
  return values as Values;
}

function checkRow(row: unknown, rowCount: number, index: number): number {
  if (typeof row !== 'number' || !Number.isInteger(row) || row < 1 || row > rowCount) {
    throw new AppError(
      'row_not_found',
      `Row ${String(row)} does not exist; the tab has ${quantity(rowCount, 'row')}.`,
      {
        row,
        row_count: rowCount,
        index,
      },
    );
  }
  return row;
}

/** A row that exists and that an earlier mutation of the batch did not delete (`ifDeleted` ends the error when one did). */
function checkLiveRow(
  row: unknown,
  rowCount: number,
  deleted: ReadonlySet<number>,
  index: number,
  ifDeleted: string,
): number {
  const checked = checkRow(row, rowCount, index);
  if (deleted.has(checked)) {
    throw new AppError('invalid_body', `Row ${checked} ${ifDeleted}.`, { row: checked, index });
  }
  return checked;
}

/**
 * Header for a tab that has none yet: the keys of the appended objects in first-seen order (union over the
 * batch). Keys must be usable as header names as they are: non-empty and without surrounding spaces
 * (the reader trims names, so " a" would come back as "a").
 */
function headerFromAppends(mutations: readonly unknown[]): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  mutations.forEach((m, index) => {
    if (!isPlainObject(m) || m.op !== 'append' || !isPlainObject(m.values)) return;
    for (const key of Object.keys(m.values)) {
      if (key === '' || key.trim() !== key) {
        throw new AppError('unknown_field', `"${key}" cannot be used as a column name.`, {
          field: key,
          index,
        });
      }
      if (!seen.has(key)) {
        seen.add(key);
        names.push(key);
      }
    }
  });
  return names;
}

/**
 * A number written into a date cell must be a date the cell shows (cell-rules.ts): checked on the cells the plan
 * writes (a value a cell already reads as is not written), in the order of the mutations.
 */
function assertDateNumbers(plan: WritePlan, context: PlanContext): void {
  const { dates, options } = context;
  if (!dates) return;
  const checks: { cell: CellWrite; target: () => DateTarget }[] = [];
  for (const { row, cells } of plan.updates) {
    for (const cell of cells) checks.push({ cell, target: () => dates.updated(row, cell.column) });
  }
  let appended: ((nth: number, column: number) => DateTarget) | undefined;
  plan.appends.forEach((cells, nth) => {
    for (const cell of cells) {
      const target = () => {
        appended ??= dates.appended(plan.deletes);
        return appended(nth, cell.column);
      };
      checks.push({ cell, target });
    }
  });
  checks.sort((a, b) => (a.cell.index ?? 0) - (b.cell.index ?? 0));
  for (const { cell, target } of checks) {
    const parsed = interpretInput(cell.value, options);
    if (parsed.kind !== 'number') continue;
    const system = target();
    if (system) assertShownAsDate(parsed.value, system, cell.field ?? '', cell.index);
  }
}

export function planWrite(tab: TabSnapshot, mutations: unknown, context?: PlanContext): WritePlan {
  if (!Array.isArray(mutations)) throw new AppError('invalid_body', 'Mutations must be an array');
  const newHeader = tab.header.length === 0;
  const header = newHeader ? headerFromAppends(mutations) : tab.header;
  const columnOf = new Map(header.map((name, i) => [name, i]));
  const rowCount = rowCountOf(tab);

  const toCells = (values: Values, index: number): CellWrite[] =>
    Object.entries(values).map(([field, value]) => {
      const column = columnOf.get(field);
      if (column === undefined)
        throw new AppError('unknown_field', `Unknown field "${field}".`, { field, index });
      return { column, value, field, index };
    });

  const updates = new Map<number, CellWrite[]>();
  const deleted = new Set<number>();
  const appends: CellWrite[][] = [];
  const counts = { appended: 0, updated: 0, deleted: 0 };

  mutations.forEach((m: unknown, index) => {
    if (!isPlainObject(m)) throw new AppError('invalid_body', 'A mutation must be an object.', { index });
    switch (m.op) {
      case 'append': {
        appends.push(toCells(checkValues(m.values, index), index));
        counts.appended++;
        break;
      }
      case 'update': {
        const row = checkLiveRow(m.row, rowCount, deleted, index, 'is deleted earlier in this batch');
        const cells = toCells(checkValues(m.values, index), index);
        updates.set(row, [...(updates.get(row) ?? []), ...cells]);
        counts.updated++;
        break;
      }
      case 'delete': {
        const row = checkLiveRow(m.row, rowCount, deleted, index, 'is deleted twice in this batch');
        deleted.add(row);
        counts.deleted++;
        break;
      }
      default:
        throw new AppError('invalid_body', `Unknown op ${JSON.stringify(m.op)}.`, {
          index,
        });
    }
  });

  const plan: WritePlan = {
    header,
    newHeader: newHeader && appends.length > 0,
    // A cell written with the value it reads as is left alone (round-trip.ts).
    updates: [...updates].map(([row, cells]) => ({ row, cells: changedCells(tab, row, cells) })),
    deletes: [...deleted].sort((a, b) => b - a),
    appends,
    counts,
  };
  if (context) assertDateNumbers(plan, context);
  return plan;
}
