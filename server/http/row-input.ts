import { AppError } from '../errors.ts';
import type { CellInput } from '../sources/source.ts';

export const MAX_ROWS_PER_WRITE = 500;

/** `{row}` in a path: a positive integer, written plainly (no sign, no decimals, no exponent). */
export function parseRowNumber(raw: string): number {
  const n = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new AppError('invalid_parameter', `Row must be a positive integer, got "${raw}".`, {
      parameter: 'row',
    });
  }
  return n;
}

/** One row object: every value a string, finite number, boolean or null (no nested objects or arrays). */
export function parseRowObject(body: unknown, where: string, index?: number): Record<string, CellInput> {
  const at = index === undefined ? {} : { index };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_body', `${where} must be a JSON object of field names to values.`, at);
  }
  const values: Record<string, CellInput> = Object.create(null);
  for (const [field, value] of Object.entries(body)) {
    if (
      value === null ||
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      values[field] = value;
    } else {
      throw new AppError(
        'invalid_body',
        `${where}: field "${field}" must be a string, number, boolean or null.`,
        { field, ...at },
      );
    }
  }
  return values;
}

/** POST body: one row object or an array of 1..500 of them. */
export function parseAppendBody(body: unknown): Record<string, CellInput>[] {
  if (body === undefined)
    throw new AppError('invalid_body', 'Request body is required: a row object or an array of them.');
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0) throw new AppError('invalid_body', 'The array of rows is empty.');
  if (list.length > MAX_ROWS_PER_WRITE) {
    throw new AppError('invalid_body', `At most ${MAX_ROWS_PER_WRITE} rows per request, got ${list.length}.`);
  }
  return list.map((row, i) => {
    // An item of a POSTed array is named by its 0-based `index`, as a batch names its mutations.
    const index = Array.isArray(body) ? i : undefined;
    const where = index === undefined ? 'Body' : `Item ${index} of the array`;
    const values = parseRowObject(row, where, index);
    assertNotBlank(values, where, index);
    return values;
  });
}

/**
 * An appended row with no value would land after the last row and, being empty, not be a row at all: the
 * answer would say "appended" while nothing appears. Refuse it instead.
 */
export function assertNotBlank(values: Record<string, CellInput>, where: string, index?: number): void {
  if (!Object.values(values).some((v) => v !== null && v !== '')) {
    throw new AppError(
      'invalid_body',
      `${where}: an appended row needs at least one non-empty value.`,
      index === undefined ? {} : { index },
    );
  }
}

/** PUT/PATCH body: a non-empty object of the fields to change. */
export function parseUpdateBody(body: unknown): Record<string, CellInput> {
  if (body === undefined)
    throw new AppError('invalid_body', 'Request body is required: an object of fields to change.');
  const values = parseRowObject(body, 'Body');
  if (Object.keys(values).length === 0) throw new AppError('invalid_body', 'Body names no field to change.');
  return values;
}

/** `?input=raw` (default: strings stay text) or `?input=user_entered` (parsed as the sheet would). */
export function parseInputMode(raw: unknown): boolean {
  if (raw === undefined || raw === 'raw') return false;
  if (raw === 'user_entered') return true;
  throw new AppError('invalid_parameter', 'input must be "raw" or "user_entered".', { parameter: 'input' });
}

/**
 * `If-Match` is a precondition on one row (its ETag, from a GET of it): a write of several rows found as it runs
 * (a batch, an upsert, a write by filter) has no one row to hold it to, so the header is refused rather than
 * silently not checked (docs/api.md, "Conditional writes").
 */
export function refuseIfMatch(ifMatch: string | undefined, write: string): void {
  if (ifMatch === undefined) return;
  throw new AppError(
    'invalid_parameter',
    `If-Match applies to the write of one row (PUT, PATCH or DELETE of .../rows/{row}); ${write} takes none. Use dry_run=true to see the rows it would write.`,
    { parameter: 'If-Match' },
  );
}
