/**
 * How a write's error names the mutation it is about: one rule for every write route (docs/api.md, "Errors").
 *
 * Sources and planning report the failing mutation as data, `details.index`, its 0-based position in the
 * mutations they were given. A route passes that on only when its request sent a list, so the position means
 * something to the caller:
 * - `single` (one object POSTed, a PUT, PATCH or DELETE of one row): no list, no `index`; the error answers
 *   exactly as a GET's would;
 * - `rows` (an array POSTed): `index` is the row's position in the array;
 * - `batch` (`rows:batchUpdate`): `index` is the mutation's position, every message starts with
 *   `mutations[index]: `, and a row after the last row is part of a bad body (400 `invalid_body`, with `row`
 *   and `row_count`), not a missing resource.
 */
import { AppError, isAppError } from '../errors.ts';
import { quantity } from '../lib/quantity.ts';
import type { Mutation, WriteOptions, WriteResult } from '../sources/source.ts';
import type { Spreadsheet } from '../spreadsheets/spreadsheet.ts';

export type MutationList = 'single' | 'rows' | 'batch';

/** A batch's error about mutation `index`: the message starts with `mutations[index]: `, details carry `index`. */
export function atMutation(
  index: number,
  code: AppError['code'],
  message: string,
  details: Record<string, unknown> = {},
): AppError {
  return new AppError(code, `mutations[${index}]: ${message}`, { ...details, index });
}

/** The error as the route answers it, by the rule above; anything not about one mutation is left alone. */
export function addressMutationError(e: unknown, list: MutationList): unknown {
  if (list === 'rows' || !isAppError(e) || typeof e.details.index !== 'number') return e;
  const { index, ...details } = e.details;
  if (list === 'single') return new AppError(e.code, e.message, details);
  if (e.code === 'row_not_found') {
    const count =
      typeof details.row_count === 'number' ? ` (the tab has ${quantity(details.row_count, 'row')})` : '';
    return atMutation(index, 'invalid_body', `row ${String(details.row)} does not exist${count}.`, details);
  }
  return atMutation(index, e.code, e.message.charAt(0).toLowerCase() + e.message.slice(1), details);
}

/** Mutations of one tab written through its spreadsheet, a failure answered by the rule above. */
export async function writeMutations(
  spreadsheet: Spreadsheet,
  sourceSheetId: string,
  mutations: Mutation[],
  options: WriteOptions,
  list: MutationList,
): Promise<WriteResult> {
  try {
    return await spreadsheet.write(sourceSheetId, mutations, options);
  } catch (e) {
    throw addressMutationError(e, list);
  }
}
