import { AppError } from '../../errors.ts';

/**
 * A `where` (or `metrics`, read with its tokens) that cannot be read: 400 `invalid_parameter` naming the
 * parameter, the 0-based character `position` where the offending token starts (or the text's length when it
 * ended too soon), and what was expected there.
 */
export function whereError(
  position: number,
  problem: string,
  expected: readonly string[] = [],
  parameter = 'where',
): AppError {
  const wanted = expected.length > 0 ? `; expected ${listOf(expected)}` : '';
  return new AppError(
    'invalid_parameter',
    `Parameter "${parameter}" at position ${position}: ${problem}${wanted}.`,
    {
      parameter,
      position,
      ...(expected.length > 0 ? { expected: [...expected] } : {}),
    },
  );
}

function listOf(items: readonly string[]): string {
  if (items.length === 1) return items[0]!;
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
