/**
 * A row moved by a delete is renumbered in place (row-xml.ts `movedRowXml`), and gives exactly what taking the
 * row apart and writing it back gives, for rows as Excel, openpyxl and LibreOffice write them; a row whose cells
 * lack the usual references is left to the slow way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  movedRowXml,
  parseRow,
  renumberRow,
  rowToXml,
} from '../../../../server/sources/workbook/ooxml/row-xml.ts';

const slow = (xml: string, prefix: string, number: number) => {
  const row = parseRow(xml, prefix);
  renumberRow(row, number);
  return rowToXml(row, prefix);
};

const cellArb = (prefix: string, row: number) =>
  fc
    .record({
      column: fc.constantFrom('A', 'B', 'Z', 'AA', 'XFD'),
      kind: fc.constantFrom('number', 'sharedString', 'inline', 'formula', 'empty'),
      style: fc.option(fc.nat(40), { nil: undefined }),
    })
    .map(({ column, kind, style }) => {
      const p = prefix;
      const s = style === undefined ? '' : ` s="${style}"`;
      const r = `${column}${row}`;
      if (kind === 'empty') return `<${p}c r="${r}"${s}/>`;
      if (kind === 'sharedString') return `<${p}c r="${r}"${s} t="s"><${p}v>3</${p}v></${p}c>`;
      if (kind === 'inline')
        return `<${p}c r="${r}" t="inlineStr"><${p}is><${p}t xml:space="preserve"> a&lt;c </${p}t></${p}is></${p}c>`;
      if (kind === 'formula')
        return `<${p}c r="${r}"${s}><${p}f>SUM(A1:A${row})</${p}f><${p}v>1</${p}v></${p}c>`;
      return `<${p}c r="${r}"${s}><${p}v>${row}.5</${p}v></${p}c>`;
    });

describe('a row moved by a delete', () => {
  it('reads as the slow way writes it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', 'x:'),
        fc.integer({ min: 2, max: 1_048_576 }),
        fc.integer({ min: 1, max: 1_048_575 }),
        fc.boolean(),
        fc.boolean(),
        (prefix, row, to, spans, attrs) =>
          fc.assert(
            fc.property(fc.array(cellArb(prefix, row), { minLength: 1, maxLength: 6 }), (cells) => {
              const start = `<${prefix}row r="${row}"${spans ? ' spans="1:6"' : ''}${attrs ? ' ht="20" customHeight="1"' : ''}>`;
              const xml = `${start}${cells.join('')}</${prefix}row>`;
              expect(movedRowXml(xml, to)).toBe(slow(xml, prefix, to));
            }),
            { numRuns: 5 },
          ),
      ),
      { numRuns: 200 },
    );
  });

  it('leaves unusual references to the slow way', () => {
    expect(movedRowXml('<row r="4"><c><v>1</v></c></row>', 3)).toBeNull();
    expect(movedRowXml("<row r='4'><c r='a4'><v>1</v></c></row>", 3)).toBeNull();
    expect(movedRowXml('<row r="4"/>', 3)).toBeNull();
  });
});
