/**
 * Rows moved by a delete renumbered in their bytes (row-number-shift.ts): for a run of rows in the form every
 * writer uses, the bytes are what renumbering each row the general way gives (row-xml.ts), apart from `spans`,
 * which the byte way keeps; each row's change of length is reported; any other form answers null, so the
 * caller falls back to the general way rather than writing a wrong number.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deflatePiece, inflatePiece } from '../../../../server/sources/workbook/ooxml/chunked-deflate.ts';
import { movePiece } from '../../../../server/sources/workbook/ooxml/piece-move.ts';
import { movePieceOffThread } from '../../../../server/sources/workbook/ooxml/piece-threads.ts';
import { shiftRowNumbers } from '../../../../server/sources/workbook/ooxml/row-number-shift.ts';
import {
  movedRowXml,
  parseRow,
  renumberRow,
  rowToXml,
} from '../../../../server/sources/workbook/ooxml/row-xml.ts';

/** A row renumbered the general way, as a delete does it (row-delete.ts). */
const general = (xml: string, number: number) => {
  const moved = movedRowXml(xml, number);
  if (moved !== null) return moved;
  const row = parseRow(xml, '');
  renumberRow(row, number);
  return rowToXml(row, '');
};

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

const cell = (column: string, row: number, kind: number, style: number | undefined) => {
  const r = `${column}${row}`;
  const s = style === undefined ? '' : ` s="${style}"`;
  switch (kind) {
    case 0:
      return `<c r="${r}"${s}/>`;
    case 1:
      return `<c r="${r}"${s} t="s"><v>3</v></c>`;
    case 2:
      // Text that looks like a reference, and characters beyond ASCII: bytes and UTF-16 lengths differ.
      return `<c r="${r}" t="inlineStr"><is><t xml:space="preserve"> r="A${row}" é€😀 &lt;c r="B1"</t></is></c>`;
    default:
      return `<c r="${r}"${s}><v>${row}.5</v></c>`;
  }
};

const rowArb = fc.record({
  cells: fc.array(
    fc.record({
      column: fc.constantFrom('A', 'B', 'Z', 'AA', 'XFD'),
      kind: fc.integer({ min: 0, max: 3 }),
      style: fc.option(fc.nat(40), { nil: undefined }),
    }),
    { maxLength: 5 },
  ),
  attrs: fc.boolean(),
});

type RowShape = { cells: { column: string; kind: number; style: number | undefined }[]; attrs: boolean };

const rowXml = (shape: RowShape, number: number) => {
  const start = `<row r="${number}"${shape.attrs ? ' ht="20" customHeight="1"' : ''}`;
  if (shape.cells.length === 0) return `${start}/>`;
  return `${start}>${shape.cells.map((c) => cell(c.column, number, c.kind, c.style)).join('')}</row>`;
};

describe('rows renumbered in their bytes', () => {
  it('give what the general way gives, row by row, across powers of ten and both ways, as bytes and as a piece', () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { minLength: 1, maxLength: 12 }),
        // First numbers near powers of ten, so some runs change width part way.
        fc.constantFrom(2, 9, 10, 95, 99, 100, 995, 1000, 99_995, 100_000, 1_048_570),
        // Negative: rows moved down (an insert); the run never moves above row 1 or below the last row.
        fc.integer({ min: -5, max: 200 }).filter((shift) => shift !== 0),
        (shapes, first, shift) => {
          const numbers = shapes.map((_, i) => first + i);
          fc.pre((numbers[0] as number) - shift >= 1 && (numbers.at(-1) as number) - shift <= 1_048_576);
          const rows = shapes.map((shape, i) => rowXml(shape, numbers[i] as number));
          const moved = shiftRowNumbers(encode(rows.join('')), shift, rows.length);
          expect(moved).not.toBeNull();
          const expected = rows.map((xml, i) => general(xml, (numbers[i] as number) - shift));
          expect(decode(moved?.text as Uint8Array)).toBe(expected.join(''));
          expect(Array.from(moved?.growth ?? [])).toEqual(
            rows.map((xml, i) => (expected[i] as string).length - xml.length),
          );
          // A compressed piece moved renumbers its inflated bytes where they are, and reads them again when a
          // number changes width part way (rows moved down across a power of ten).
          const viaPiece = movePiece(deflatePiece(rows.join(''), false), shift, rows.length);
          expect(inflatePiece(viaPiece?.piece as NonNullable<typeof viaPiece>['piece'])).toBe(
            expected.join(''),
          );
          expect(Array.from(viaPiece?.growth ?? [])).toEqual(Array.from(moved?.growth ?? []));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps spans, which a move leaves right', () => {
    const text = '<row r="12" spans="1:3"><c r="A12"><v>1</v></c><c r="C12"><v>2</v></c></row>';
    const moved = shiftRowNumbers(encode(text), 3, 1);
    expect(decode(moved?.text as Uint8Array)).toBe(
      '<row r="9" spans="1:3"><c r="A9"><v>1</v></c><c r="C9"><v>2</v></c></row>',
    );
    expect(Array.from(moved?.growth ?? [])).toEqual([-3]);
  });

  it.each([
    ['a cell without r', '<row r="5"><c><v>1</v></c></row>', 1],
    ['a cell whose r is not its first attribute', '<row r="5"><c s="1" r="A5"><v>1</v></c></row>', 1],
    ['a cell in single quotes', '<row r="5"><c r=\'A5\'><v>1</v></c></row>', 1],
    ['a cell naming another row', '<row r="5"><c r="A6"><v>1</v></c></row>', 1],
    ['lower-case column letters', '<row r="5"><c r="a5"><v>1</v></c></row>', 1],
    ['a row without r', '<row><c r="A5"><v>1</v></c></row>', 1],
    ['a row whose r is not its first attribute', '<row ht="3" r="5"/>', 1],
    ['a prefixed row', '<x:row r="5"><x:c r="A5"><x:v>1</x:v></x:c></x:row>', 1],
    ['a comment', '<row r="5"><!-- <c r="A5"> --><c r="A5"><v>1</v></c></row>', 1],
    ['CDATA', '<row r="5"><c r="A5" t="inlineStr"><is><t><![CDATA[<c r="A5">]]></t></is></c></row>', 1],
    ['fewer rows than said', '<row r="5"/>', 2],
    ['more rows than said', '<row r="5"/><row r="6"/>', 1],
    ['a row that would move above row 1', '<row r="1"/>', 1],
  ])('answers null for %s', (_, text, rows) => {
    expect(shiftRowNumbers(encode(text), 1, rows)).toBeNull();
  });

  it('moves a compressed piece the same on a piece-move thread as on this one', async () => {
    const rows = Array.from({ length: 500 }, (_, i) =>
      rowXml(
        {
          cells: [
            { column: 'A', kind: 3, style: 2 },
            { column: 'B', kind: 2, style: undefined },
          ],
          attrs: false,
        },
        1000 + i,
      ),
    );
    const piece = deflatePiece(rows.join(''), false);
    const here = movePiece(piece, 7, rows.length);
    const there = await movePieceOffThread(piece, 7, rows.length);
    expect(there).not.toBeNull();
    expect(inflatePiece(there?.piece as typeof piece)).toBe(inflatePiece(here?.piece as typeof piece));
    expect(inflatePiece(there?.piece as typeof piece)).toBe(
      rows.map((xml, i) => general(xml, 993 + i)).join(''),
    );
    expect(there?.piece.crc).toBe(here?.piece.crc);
    expect(Array.from(there?.growth ?? [])).toEqual(Array.from(here?.growth ?? []));
    // A piece not in the handled form comes back null from the thread as well.
    expect(
      await movePieceOffThread(deflatePiece('<row r="5"><c><v>1</v></c></row>', false), 1, 1),
    ).toBeNull();
  });
});
