/**
 * A tab's format codes read the same whether held per cell or, when every row has the same, per column
 * (format-codes.ts): the form chosen never changes what a cell reads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatCodes } from '../../../server/sources/workbook/format-codes.ts';

describe('format codes', () => {
  it('are held per column exactly when every row has the first row codes, and read the same either way', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 3 })), { maxLength: 3 }),
        (width, rows, pattern, changes) => {
          const cells = new Uint16Array(rows * width);
          for (let r = 0; r < rows; r++) for (let c = 0; c < width; c++) cells[r * width + c] = pattern[c]!;
          for (const [row, column, code] of changes) cells[(row % rows) * width + (column % width)] = code;
          const codes = FormatCodes.of(cells, width, rows);
          const alike = [...cells].every((code, at) => code === cells[at % width]);
          expect(codes.byColumn !== null).toBe(alike);
          for (let r = 0; r < rows; r++)
            for (let c = 0; c < width; c++) expect(codes.at(r, c)).toBe(cells[r * width + c]);
          const copy = codes.perCellCopy(rows, rows + 2);
          expect([...copy.subarray(0, rows * width)]).toEqual([...cells]);
          expect([...copy.subarray(rows * width)]).toEqual(new Array(2 * width).fill(0));
        },
      ),
    );
  });

  it('say whether a row has the codes of every row', () => {
    const codes = FormatCodes.perColumn([3, 0, 7], 3);
    expect(codes.sameForEveryRow([3, 0, 7])).toBe(true);
    expect(codes.sameForEveryRow([3, 0])).toBe(false);
    expect(codes.sameForEveryRow([3, 0, 8])).toBe(false);
    expect(FormatCodes.perCell(new Uint16Array([3, 0, 7]), 3).sameForEveryRow([3, 0, 7])).toBe(false);
  });
});
