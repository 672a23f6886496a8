/**
 * What a source can store, checked once for every write path (rows, batch, any kind of source) before a
 * mutation reaches the source: a value the service acknowledges must be the value a reload gives back, so
 * anything the source cannot hold exactly is refused here with 400 `invalid_body` naming the field.
 */
import { AppError } from '../errors.ts';
import type { CellInput, CellLimits, Mutation } from './source.ts';

/** A UTF-16 surrogate half without its partner: not a character, so no file or API can carry it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function refuse(message: string, field: string, index: number): AppError {
  return new AppError('invalid_body', message, { field, index });
}

function checkText(text: string, field: string, what: string, limits: CellLimits, index: number): void {
  if (LONE_SURROGATE.test(text)) {
    throw refuse(
      `${what} "${field}" contains an unpaired UTF-16 surrogate, which is not a character; send valid Unicode text.`,
      field,
      index,
    );
  }
  if (text.length > limits.maxCellChars) {
    throw refuse(
      `${what} "${field}" is ${text.length} characters long; a cell holds at most ${limits.maxCellChars}.`,
      field,
      index,
    );
  }
}

function checkValues(values: Record<string, CellInput>, limits: CellLimits, index: number): void {
  const fields = Object.keys(values);
  if (fields.length > limits.maxColumns) {
    throw new AppError(
      'invalid_body',
      `The row names ${fields.length} fields; a tab has at most ${limits.maxColumns} columns.`,
      { limit: limits.maxColumns, index },
    );
  }
  for (const field of fields) {
    // The name may become a header cell (first append to an empty tab): it must be storable too.
    checkText(field, field, 'The field name', limits, index);
    const value = values[field];
    if (typeof value === 'string') checkText(value, field, 'The value of field', limits, index);
  }
}

/**
 * Throws 400 `invalid_body` for the first value the source cannot store exactly, with `field` and the
 * mutation's `index` as data (a single-row route drops the index; a batch reports it).
 */
export function assertStorable(mutations: readonly Mutation[], limits: CellLimits): void {
  mutations.forEach((mutation, index) => {
    if (mutation.op !== 'delete') checkValues(mutation.values, limits, index);
  });
}
