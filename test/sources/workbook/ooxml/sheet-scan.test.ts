/**
 * The byte scanner of worksheet parts (sheet-scan.ts, with its one-pass reader of plain cells,
 * sheet-scan-plain.ts) reads every part as the full XML parser does (saxes, sheet-scan-saxes.ts): generated
 * parts of every cell form a spreadsheet writes (plain numbers of every spelling, shared strings, booleans,
 * dates, inline strings with entities and phonetic runs, formulas, references with and without `$`, cells
 * without one, odd attribute spellings, a namespace prefix, merged cells), read whole and cut into chunks of
 * any size, give the same tab (the tab builder's output, compared whole). Parts outside the scanner's grammar
 * fall back to saxes, and still read the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadContext } from '../../../../server/sources/workbook/ooxml/cell-decode.ts';
import { scanSheet, scanSheetChunks } from '../../../../server/sources/workbook/ooxml/sheet-scan.ts';
import { scanWithSaxes } from '../../../../server/sources/workbook/ooxml/sheet-scan-saxes.ts';
import { StylesPart } from '../../../../server/sources/workbook/ooxml/styles-part.ts';
import { TabBuilder } from '../../../../server/sources/workbook/ooxml/tab-builder.ts';

const SHARED = ['alpha', 'beta', '', 'déjà vu', 'x_x0041_y'];
const STYLES = new StylesPart(
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
    '<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/></numFmts>' +
    '<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="2"/><xf numFmtId="164"/></cellXfs>' +
    '</styleSheet>',
);

function builder(): TabBuilder {
  const ctx: ReadContext = { date1904: false, styles: STYLES, sharedString: (i) => SHARED[i] ?? '' };
  return new TabBuilder(ctx, SHARED.length);
}

const NUMBERS = [
  '0',
  '-0',
  '7.99',
  '-12.5',
  '007',
  '.5',
  '1.',
  '123456789012345',
  '1234567890123456',
  '1e5',
  '2.5E-3',
  ' 5',
  '5 ',
  '45000',
  '-1',
  '1.2.3',
  '',
  '0.1',
  '99999999999999.9',
  'abc',
  '+3',
  'NaN',
  '3..',
];
const SHARED_VALUES = ['0', '1', '2', '3', '4', '9', '007', '', '-1', ' 1', '1234567890', 'x'];

/** One cell's XML (with the prefix `p`), in one of the forms the generator picks. */
const cellArb = (p: string) =>
  fc
    .record({
      form: fc.nat(13),
      number: fc.constantFrom(...NUMBERS),
      random: fc.double({ noNaN: true, noDefaultInfinity: true }),
      shared: fc.constantFrom(...SHARED_VALUES),
      style: fc.constantFrom('', ' s="1"', ' s="2"', ' s="3"', ' s="0"', " s='1'", ' s="x"'),
      ref: fc.constantFrom('ref', 'none', 'dollar', 'bad'),
      text: fc.stringMatching(/^[a-zé<>&" _x0-9]{0,10}$/),
      spacing: fc.constantFrom('', ' ', '\n  '),
    })
    .map((c) => (ref: string) => {
      const r =
        c.ref === 'none'
          ? ''
          : c.ref === 'dollar'
            ? ` r="$${ref.replace(/\d/, '$$$&')}"`
            : c.ref === 'bad'
              ? ' r="ZZZZ1"'
              : ` r="${ref}"`;
      const esc = c.text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;');
      const v = (text: string) => `<${p}v>${text}</${p}v>`;
      const cell = (attrs: string, body: string) =>
        `${c.spacing}<${p}c${r}${c.style}${attrs}>${body}</${p}c>`;
      switch (c.form) {
        case 0:
          return cell('', v(c.number));
        case 1:
          return cell(' t="n"', v(String(c.random)));
        case 2:
          return cell(' t="s"', v(c.shared));
        case 3:
          return cell(' t="b"', v(c.random > 0 ? '1' : '0'));
        case 4:
          return cell(
            ' t="inlineStr"',
            `<${p}is><${p}r><${p}t>${esc}</${p}t></${p}r><${p}rPh><${p}t>ふ</${p}t></${p}rPh><${p}t xml:space="preserve"> ${esc}</${p}t></${p}is>`,
          );
        case 5:
          return cell(' t="str"', `<${p}f>A1&amp;"${esc}"</${p}f>${v(esc)}`);
        case 6:
          return cell('', `<${p}f t="shared" si="0" ref="A1:A3">B1*2</${p}f>${v(c.number)}`);
        case 7:
          return cell(' t="e"', v('#DIV/0!'));
        case 8:
          return `${c.spacing}<${p}c${r}${c.style}/>`;
        case 9:
          return cell(' t="d"', v('2024-02-29T00:00:00'));
        case 10:
          return cell(' t = "s" ', v(c.shared));
        case 11:
          return cell('', `${v(c.number)}<${p}extLst><${p}ext uri="u"><x:y/></${p}ext></${p}extLst>`);
        case 12:
          return cell(' t="s"', `<${p}f>X1</${p}f>${v(c.shared)}`);
        default:
          return cell(` t="n" cm="1"`, v(`${c.number}`));
      }
    });

const sheetArb = fc.constantFrom('', 'x:').chain((p) =>
  fc.record({
    p: fc.constant(p),
    rows: fc.array(
      fc.record({ cells: fc.array(cellArb(p), { maxLength: 6 }), numbered: fc.boolean(), gap: fc.nat(2) }),
      { maxLength: 12 },
    ),
    merged: fc.boolean(),
    comment: fc.boolean(),
  }),
);

function sheetXml(
  s: fc.Arbitrary<unknown> extends never ? never : ReturnType<typeof sheetArb.generate>['value'],
) {
  const { p } = s;
  let n = 0;
  const rows = s.rows
    .map((row) => {
      n += 1 + row.gap;
      const cells = row.cells.map((make, i) => make(`${String.fromCharCode(65 + i)}${n}`)).join('');
      return `<${p}row${row.numbered ? ` r="${n}" spans="1:6"` : ''}>${cells}</${p}row>`;
    })
    .join(s.comment ? '<!-- a comment -->' : '\n');
  const ns = p ? ' xmlns:x="urn:x"' : ' xmlns="urn:main"';
  const merges = s.merged ? `<${p}mergeCells count="1"><${p}mergeCell ref="A1:B2"/></${p}mergeCells>` : '';
  return `<?xml version="1.0"?><${p}worksheet${ns}><${p}dimension ref="A1"/><${p}sheetData>${rows}</${p}sheetData>${merges}</${p}worksheet>`;
}

function finished(b: TabBuilder, merges: readonly string[]) {
  return b.finish('1', 'Sheet', merges);
}

async function* chunksOf(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('the byte scanner of worksheet parts', () => {
  it('reads every generated part as the full XML parser does, whole and in chunks of any size', async () => {
    await fc.assert(
      fc.asyncProperty(sheetArb, fc.integer({ min: 1, max: 200 }), async (sheet, size) => {
        const xml = sheetXml(sheet);
        const expected = builder();
        const expectedMerges = scanWithSaxes(xml, expected).merges;
        const want = finished(expected, expectedMerges);

        const whole = builder();
        expect(finished(whole, scanSheet(xml, whole).merges)).toEqual(want);

        const chunked = builder();
        const scan = await scanSheetChunks(chunksOf(Buffer.from(xml, 'utf8'), size), chunked);
        if (scan === null) {
          // Outside the grammar (a comment between rows): only the full parser reads it.
          expect(sheet.comment).toBe(true);
          return;
        }
        expect(finished(chunked, scan.merges)).toEqual(want);
      }),
      { numRuns: 400 },
    );
  });

  it('reads plain numbers exactly as parseFloat does', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.nat(6), (n, digits) => {
        for (const text of [String(n), n.toFixed(digits)]) {
          const xml = `<worksheet><sheetData><row r="1"><c r="A1" t="str"><v>h</v></c></row><row r="2"><c r="A2"><v>${text}</v></c></row></sheetData></worksheet>`;
          const b = builder();
          scanSheet(xml, b);
          const tab = finished(b, []);
          expect(tab.values[0]).toBe(Number.parseFloat(text));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds no cells in a part without sheetData, and refuses no part for its head', async () => {
    for (const xml of [
      '<worksheet/>',
      '<worksheet><sheetData/><mergeCells><mergeCell ref="A1:B1"/></mergeCells></worksheet>',
    ]) {
      const b = builder();
      const scan = await scanSheetChunks(chunksOf(Buffer.from(xml), 3), b);
      expect(scan?.merges).toEqual(scanWithSaxes(xml, builder()).merges);
    }
  });

  it('reads a row longer than many chunks, and leaves a head of megabytes to the full parser', async () => {
    const cells = Array.from(
      { length: 3000 },
      (_, i) => `<c r="${colName(i)}2" t="inlineStr"><is><t>${'é'.repeat(i % 50)}</t></is></c>`,
    );
    const long = `<worksheet><sheetData><row r="1"><c r="A1" t="str"><v>h</v></c></row><row r="2">${cells.join('')}</row></sheetData></worksheet>`;
    const want = builder();
    const wantTab = finished(want, scanWithSaxes(long, want).merges);
    const chunked = builder();
    const scan = await scanSheetChunks(chunksOf(Buffer.from(long), 97), chunked);
    expect(scan).not.toBeNull();
    expect(finished(chunked, scan?.merges ?? [])).toEqual(wantTab);

    const bigHead = `<worksheet><sheetPr><extLst>${'<x/>'.repeat(1_100_000)}</extLst></sheetPr><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`;
    expect(await scanSheetChunks(chunksOf(Buffer.from(bigHead), 1 << 16), builder())).toBeNull();
    const whole = builder();
    const viaSaxes = builder();
    expect(finished(whole, scanSheet(bigHead, whole).merges)).toEqual(
      finished(viaSaxes, scanWithSaxes(bigHead, viaSaxes).merges),
    );
  });
});

function colName(i: number): string {
  let n = i + 1;
  let name = '';
  while (n > 0) {
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}
