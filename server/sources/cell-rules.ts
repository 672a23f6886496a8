/**
 * What a source can store, checked once for every write path (rows, batch, any kind of source) before a
 * mutation reaches the source: a value the service acknowledges must be the value a reload gives back, so
 * anything the source cannot hold exactly is refused here with 400 `invalid_body` naming the field.
 */
import { AppError } from '../errors.ts';
import type { DateSystem } from './serial-dates.ts';
import type { CellInput, CellLimits, Mutation, WriteOptions } from './source.ts';

/** A UTF-16 surrogate half without its partner: not a character, so no file or API can carry it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Characters a formula's text cannot keep: XML 1.0 cannot carry C0 controls (TAB and LF aside), U+FFFE or U+FFFF,
 * and a CR in the file comes back as LF. Text cells escape them (`_xHHHH_`); a formula is code, and a
 * spreadsheet writes these characters with CHAR() or UNICHAR() instead.
 */
const FORMULA_UNSAFE = /[\u0000-\u0008\u000B-\u001F\uFFFE\uFFFF]/;

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

function checkFormula(text: string, field: string, index: number): void {
  const unsafe = FORMULA_UNSAFE.exec(text)?.[0];
  if (unsafe === undefined) return;
  const code = `U+${unsafe.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  throw refuse(
    `The formula of field "${field}" contains the character ${code}, which a formula cannot hold in the file; ` +
      `write it with CHAR() or UNICHAR() instead.`,
    field,
    index,
  );
}

function checkValues(
  values: Record<string, CellInput>,
  limits: CellLimits,
  index: number,
  options: Pick<WriteOptions, 'allowFormulas'>,
): void {
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
    if (typeof value !== 'string') continue;
    checkText(value, field, 'The value of field', limits, index);
    // Formulas as interpretInput (input.ts) decides them: only for keys allowed to write them.
    if (options.allowFormulas && value.length > 1 && value.startsWith('=')) checkFormula(value, field, index);
  }
}

/**
 * The columns a batch's appends would give a tab: on a tab without a header every appended field becomes one,
 * so rows that each fit may not fit together.
 */
function checkAppendedColumns(mutations: readonly Mutation[], limits: CellLimits): void {
  const fields = new Set<string>();
  mutations.forEach((mutation, index) => {
    if (mutation.op !== 'append') return;
    for (const field of Object.keys(mutation.values)) fields.add(field);
    if (fields.size > limits.maxColumns) {
      throw new AppError(
        'invalid_body',
        `The appended rows name ${fields.size} different fields together; a tab has at most ${limits.maxColumns} columns.`,
        { limit: limits.maxColumns, index },
      );
    }
  });
}

/**
 * Throws 400 `invalid_body` for the first value the source cannot store exactly, with `field` and the
 * mutation's `index` as data (a single-row route drops the index; a batch reports it).
 */
export function assertStorable(
  mutations: readonly Mutation[],
  limits: CellLimits,
  options: Pick<WriteOptions, 'allowFormulas'>,
): void {
  mutations.forEach((mutation, index) => {
    if (mutation.op !== 'delete') checkValues(mutation.values, limits, index, options);
  });
  checkAppendedColumns(mutations, limits);
}

/**
 * A number written into a date cell is stored as a serial the cell shows as a date (and reads back as one); a
 * number the date system cannot show as a date (negative, past 9999-12-31, 1e308) would read back as something
 * else, so it is refused with 400 `invalid_body` naming the field (and the mutation's `index`, when known).
 */
export function assertShownAsDate(value: number, dates: DateSystem, field: string, index?: number): void {
  if (dates.showsAsDate(value)) return;
  throw new AppError(
    'invalid_body',
    `The value of field "${field}" is the number ${value}, which its date cell cannot show as a date: in ` +
      `${dates.name} a date cell holds the serial numbers ${dates.range}. Send a number in that range, or ` +
      'the date as ISO 8601 text.',
    index === undefined ? { field } : { field, index },
  );
}
