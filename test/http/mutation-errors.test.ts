/**
 * One rule for how a write's error names its mutation (server/http/mutation-errors.ts): the source's error, as
 * it reports it, answered by a single-object route, a POSTed array and a batch. The HTTP suites (rows-write,
 * batch) check the same answers end to end.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.ts';
import { addressMutationError } from '../../server/http/mutation-errors.ts';

const unknownField = () =>
  new AppError('unknown_field', 'Unknown field "Totl".', { field: 'Totl', index: 2 });
const pastTheEnd = () =>
  new AppError('row_not_found', 'Row 9 does not exist.', { row: 9, row_count: 3, index: 4 });

describe('a mutation error, as each kind of write request answers it', () => {
  it('one object: no index, the source error as it is otherwise', () => {
    const e = addressMutationError(unknownField(), 'single') as AppError;
    expect([e.code, e.message, e.details]).toEqual([
      'unknown_field',
      'Unknown field "Totl".',
      { field: 'Totl' },
    ]);
    expect((addressMutationError(pastTheEnd(), 'single') as AppError).details).toEqual({
      row: 9,
      row_count: 3,
    });
  });

  it('a POSTed array: the index of the row in the array', () => {
    const e = addressMutationError(unknownField(), 'rows') as AppError;
    expect([e.code, e.message, e.details]).toEqual([
      'unknown_field',
      'Unknown field "Totl".',
      { field: 'Totl', index: 2 },
    ]);
  });

  it('a batch: the index, the message prefixed with it, a row past the end a bad body', () => {
    const e = addressMutationError(unknownField(), 'batch') as AppError;
    expect([e.code, e.message, e.details]).toEqual([
      'unknown_field',
      'mutations[2]: unknown field "Totl".',
      { field: 'Totl', index: 2 },
    ]);
    const row = addressMutationError(pastTheEnd(), 'batch') as AppError;
    expect([row.code, row.message, row.details]).toEqual([
      'invalid_body',
      'mutations[4]: row 9 does not exist (the tab has 3 rows).',
      { row: 9, row_count: 3, index: 4 },
    ]);
  });

  it('leaves an error about no one mutation alone', () => {
    const locked = new AppError('locked', 'The file is open in Excel.');
    for (const list of ['single', 'rows', 'batch'] as const)
      expect(addressMutationError(locked, list)).toBe(locked);
  });
});
