/**
 * The CSV grid bound refuses only what the tab builder would refuse too (it is a lower bound of the grid), and
 * refuses a small file describing a huge grid before csv-parse reads it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GridTooLarge } from '../../../server/sources/tab.ts';
import { CsvDocument, detectDelimiter } from '../../../server/sources/workbook/csv.ts';
import { refuseOversizedCsv } from '../../../server/sources/workbook/csv-grid-bound.ts';

const LIMITS = { maxCells: 10_000_000, maxTextChars: 50_000_000 };

/** What the tab builder says of the whole file: refused as too large, or not. */
function refusedByTab(text: string, maxCells: number): boolean {
  try {
    CsvDocument.parse(new TextEncoder().encode(text), 'x.csv', { maxCells, maxTextChars: 1e9 }).tabs();
    return false;
  } catch (e) {
    if (e instanceof GridTooLarge) return true;
    throw e;
  }
}

describe('refuseOversizedCsv', () => {
  it('refuses a wide header over 300,000 blank lines, naming the limit', () => {
    const text = `${Array.from({ length: 100 }, (_, i) => `c${i}`).join(',')}\n${'\n'.repeat(300_000)}1\n`;
    expect(() => refuseOversizedCsv(text, ',', 'x', LIMITS)).toThrow(GridTooLarge);
    expect(() => refuseOversizedCsv(text, ',', 'x', LIMITS)).toThrow(
      /300002 rows by 100 columns.*SHEETPORT_MAX_CELLS/,
    );
    expect(() => CsvDocument.parse(new TextEncoder().encode(text), 'x.csv', LIMITS)).toThrow(GridTooLarge);
  });

  it('leaves files with quotes, and files within the limit, to the parse', () => {
    const blank = '\n'.repeat(300_000);
    expect(() => refuseOversizedCsv(`"a",b\n${blank}1\n`, ',', 'x', LIMITS)).not.toThrow();
    expect(() => refuseOversizedCsv(`a,b\n${blank}1\n`, ',', 'x', LIMITS)).not.toThrow();
  });

  it('never refuses a file the tab builder accepts', () => {
    const field = fc.constantFrom('', ' ', 'a', '1', '  x ', '\t', ';');
    const line = fc
      .tuple(fc.array(field, { maxLength: 5 }), fc.constantFrom(',', ';', '\t'))
      .map(([f, d]) => f.join(d));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.integer({ min: 1, max: 30 }), (lines, maxCells) => {
        const text = lines.join('\n');
        let bound = false;
        try {
          refuseOversizedCsv(text, detectDelimiter(text), 'x', { maxCells, maxTextChars: 1e9 });
        } catch (e) {
          if (!(e instanceof GridTooLarge)) throw e;
          bound = true;
        }
        if (bound) expect(refusedByTab(text, maxCells)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
