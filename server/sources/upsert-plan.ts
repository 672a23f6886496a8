/**
 * An upsert's mutations, worked out from the tab as it is when the write runs (WriteOptions.mutationsFor): each
 * input row names its data row by the values of 1 to 3 key columns, compared as `where`'s `=` compares (the
 * typed value, text exact: `5` is not `'5'`). A row whose key matches exactly one data row updates the fields it
 * names; one matching none is appended; one matching several is 409 `ambiguous_key`, naming the key and the rows.
 * Rows in the input order; row numbers are the tab's before the write, appended rows numbered after its last.
 */
import { AppError } from '../errors.ts';
import type { CellInput, CellValue, Mutation, TabSnapshot } from './source.ts';

/** Key columns an upsert may name at most. */
export const MAX_KEY_COLUMNS = 3;

/** The rule of an upsert's `key`, for the upsert route and the batch's op alike. */
export const KEY_RULE = `"key" must list 1 to ${MAX_KEY_COLUMNS} different column names.`;

/** `key` as its column names, or null when it is not 1 to 3 different strings. */
export function upsertKey(key: unknown): string[] | null {
  const ok =
    Array.isArray(key) &&
    key.length >= 1 &&
    key.length <= MAX_KEY_COLUMNS &&
    key.every((k) => typeof k === 'string') &&
    new Set(key).size === key.length;
  return ok ? (key as string[]) : null;
}

/** The first key column a row gives no value for (a key cell must not be empty); undefined when it gives all. */
export function missingKeyColumn(
  key: readonly string[],
  values: Record<string, CellInput>,
): string | undefined {
  return key.find((k) => values[k] === undefined || values[k] === null || values[k] === '');
}

/** What two rows with the same key share: the same key twice in one write is refused, never guessed at. */
export const keyIdentity = (key: readonly string[], values: Record<string, CellInput>): string =>
  JSON.stringify([key, key.map((k) => values[k])]);

export interface UpsertAction {
  row: number;
  action: 'updated' | 'appended';
}

export interface UpsertPlan {
  mutations: Mutation[];
  actions: UpsertAction[];
}

/** `key`: the key columns; `rows`: the input rows, each holding every key column (checked by the route). */
export function planUpsert(
  tab: TabSnapshot,
  key: readonly string[],
  rows: Record<string, CellInput>[],
): UpsertPlan {
  const columns = key.map((name) => {
    const col = tab.header.indexOf(name);
    if (col < 0) {
      throw new AppError('unknown_field', `Unknown key column "${name}": the tab has no such header.`, {
        field: name,
      });
    }
    return col;
  });
  // Data rows by key, nested one level a key column: the typed values themselves are the keys.
  const byKey = new Map<CellValue, unknown>();
  tab.typed.forEach((cells, r) => {
    let level = byKey;
    for (const [i, col] of columns.entries()) {
      const v = cells[col] ?? null;
      if (i === columns.length - 1) {
        const found = (level.get(v) as number[] | undefined) ?? [];
        found.push(r + 1);
        level.set(v, found);
      } else {
        let next = level.get(v) as Map<CellValue, unknown> | undefined;
        if (!next) {
          next = new Map();
          level.set(v, next);
        }
        level = next;
      }
    }
  });
  const rowsOf = (values: Record<string, CellInput>): number[] => {
    let level: unknown = byKey;
    for (const name of key) level = (level as Map<CellValue, unknown> | undefined)?.get(values[name] ?? null);
    return (level as number[] | undefined) ?? [];
  };
  const mutations: Mutation[] = [];
  const actions: UpsertAction[] = [];
  let appended = 0;
  rows.forEach((values, index) => {
    const found = rowsOf(values);
    if (found.length > 1) {
      const named = key.map((k) => `${k} = ${JSON.stringify(values[k])}`).join(', ');
      throw new AppError(
        'ambiguous_key',
        `rows[${index}]: ${named} matches ${found.length} rows; nothing was written.`,
        {
          index,
          key: Object.fromEntries(key.map((k) => [k, values[k]])),
          rows: found.slice(0, 20),
        },
      );
    }
    if (found.length === 1) {
      mutations.push({ op: 'update', row: found[0]!, values });
      actions.push({ row: found[0]!, action: 'updated' });
    } else {
      mutations.push({ op: 'append', values });
      actions.push({ row: tab.typed.length + ++appended, action: 'appended' });
    }
  });
  return { mutations, actions };
}
