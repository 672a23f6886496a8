/**
 * A piece's reach is what lets a delete leave the piece alone, so a delete of any rows below it must leave every
 * formula of the text as it is: checked against the delete's own rewrite (shiftSheetFormulas), on generated rows
 * of formulas with references of every form, attributes and entities, as text and as UTF-8 bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formulaFacts,
  formulaFactsOfBytes,
  formulaReach,
  formulaReachBytes,
  UNBOUNDED,
} from '../../../../server/sources/workbook/ooxml/formula-reach.ts';
import { shiftSheetFormulas } from '../../../../server/sources/workbook/ooxml/row-delete-rewrite.ts';
import { RowMap } from '../../../../server/sources/workbook/row-map.ts';

const column = fc.constantFrom('A', 'F', 'AB', 'XFD');
const row = fc.integer({ min: 1, max: 1_048_576 });
const ref = fc
  .tuple(fc.boolean(), column, fc.boolean(), row)
  .map(([a, c, b, r]) => `${a ? '$' : ''}${c}${b ? '$' : ''}${r}`);
const term = fc.oneof(
  ref,
  // Ranges as files hold them, top first (a delete's rewrite would also put a reversed one in order).
  fc.tuple(column, row, row).map(([c, a, b]) => `${c}${Math.min(a, b)}:$${c}${Math.max(a, b)}`),
  fc.tuple(row, row).map(([a, b]) => `${Math.min(a, b)}:${Math.max(a, b)}`),
  ref.map((r) => `'My tab'!${r}`),
  fc.constantFrom('F:F', '1.5', '"text 99"', 'NOW()', 'Table1[Total]'),
);
const formula = fc.array(term, { minLength: 1, maxLength: 4 }).map((terms) => `SUM(${terms.join(',')})`);
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

describe('formulaReach', () => {
  it('bounds what a delete can change: rows deleted below it leave every formula as it is', () => {
    fc.assert(
      fc.property(
        fc.array(formula, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 50 }),
        (formulas, withRef, below) => {
          const cells = formulas
            .map(
              (f, i) =>
                `<c r="B${i + 2}"><f${withRef ? ` ref="B${i + 2}"` : ''}>${escapeXml(f)}</f><v>1</v></c>`,
            )
            .join('');
          const xml = `<row r="2">${cells}</row>`;
          const reach = formulaReach(xml);
          expect(formulaReachBytes(Buffer.from(xml, 'utf8'))).toBe(reach);
          const rows = new RowMap([reach + below, reach + below + 3]);
          expect(shiftSheetFormulas(xml, { sheetName: 'My tab', onSameSheet: true, rows })).toBe(xml);
          // And the bound is not loose where it need not be: deleting the row it names changes the text (when
          // every term names a row: a whole column, `F:F`, names none, and no delete changes it).
          const named = new RowMap([reach]);
          if (reach <= 1_048_576 && formulas.every((f) => !/1\.5|99|NOW|Table1|F:F/.test(f)))
            expect(shiftSheetFormulas(xml, { sheetName: 'My tab', onSameSheet: true, rows: named })).not.toBe(
              xml,
            );
        },
      ),
    );
  });

  it('is 0 without formulas and unbounded where the text cannot bound it', () => {
    expect(formulaReach('<row r="5"><c r="A5"><v>123456</v></c></row>')).toBe(0);
    expect(formulaReach('<row r="5"><c r="A5"><f>A1+A2</f><v>3</v></c></row>')).toBe(2);
    // A shared formula's follower: its text is its master's, moved to this cell.
    expect(formulaReach('<c r="A6"><f t="shared" si="0"/><v>1</v></c>')).toBe(UNBOUNDED);
    // A prefixed element, and one that does not end.
    expect(formulaReach('<x:c r="A6"><x:f>A1</x:f></x:c>')).toBe(UNBOUNDED);
    expect(formulaReach('<c r="A6"><f>A1')).toBe(UNBOUNDED);
    // The row's own number outside the formula does not count; a fontsize tag `<font>` is no formula.
    expect(formulaReach('<row r="900"><c r="A900"><f>A2</f></c><font sz="11"/></row>')).toBe(2);
  });

  it('comes with whether the text may hold a formula and a shared one', () => {
    const shared = '<c r="A2"><f t="shared" ref="A2:A9" si="0">B2*2</f></c>';
    expect(formulaFacts(shared)).toEqual({ formulas: true, reach: 9, shared: true });
    expect(formulaFactsOfBytes(Buffer.from(shared))).toEqual(formulaFacts(shared));
    expect(formulaFacts('<c r="A2"><v>1</v></c>')).toEqual({ formulas: false, reach: 0, shared: false });
  });
});
