/**
 * A sheet part read a chunk at a time (sheet-xml-load.ts, what a write does before editing a large sheet) is the
 * same SheetXml as the part's whole text gives: the same rows, numbers and text, cut at any chunk boundary,
 * stored or deflated, with or without a namespace prefix, a byte order mark and space between rows; rows out of
 * order are left to the text reader. The chunked reader cuts bytes and the text reader a string: text beyond
 * ASCII (`é`) checks that each row's length is measured as its text, not its bytes.
 */
import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  mayHoldFormula,
  mayHoldFormulaBytes,
} from '../../../../server/sources/workbook/ooxml/formula-reach.ts';
import { SheetXml } from '../../../../server/sources/workbook/ooxml/sheet-xml.ts';
import { loadSheetXml } from '../../../../server/sources/workbook/ooxml/sheet-xml-load.ts';

const rowArb = (prefix: string) =>
  fc
    .oneof(fc.constant('empty'), fc.constant('noref'), fc.stringMatching(/^[a-zé<>&"]{0,12}$/))
    .map((kind) => ({ kind, prefix }));

function sheetText(prefix: string, rows: { kind: string }[], gaps: number[], pretty = false): string {
  let body = '';
  let number = 0;
  rows.forEach((row, i) => {
    number += 1 + (gaps[i] ?? 0);
    // Pretty-printed: space between rows (and a comment now and then), which neither reader keeps.
    if (pretty) body += i % 5 === 4 ? '\n  <!-- rows -->\n  ' : '\n  ';
    const p = prefix;
    if (row.kind === 'empty') body += `<${p}row r="${number}" spans="1:2"/>`;
    else if (row.kind === 'noref') body += `<${p}row><${p}c t="b"><${p}v>1</${p}v></${p}c></${p}row>`;
    else {
      const text = row.kind.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      body += `<${p}row r="${number}"><${p}c r="A${number}" t="inlineStr"><${p}is><${p}t>${text}</${p}t></${p}is></${p}c>`;
      body += `<${p}c r="B${number}"><${p}f>A${number}&amp;"x"</${p}f><${p}v>${number}</${p}v></${p}c></${p}row>`;
    }
  });
  const ns = prefix ? ` xmlns:${prefix.slice(0, -1)}="urn:x"` : '';
  return `<?xml version="1.0"?><${prefix}worksheet${ns}><${prefix}dimension ref="A1"/><${prefix}sheetData>${body}</${prefix}sheetData><${prefix}pageMargins left="1"/></${prefix}worksheet>`;
}

async function bothWays(text: string, chunk: number, deflated: boolean, bom: boolean) {
  const bytes = Buffer.concat([
    bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0),
    Buffer.from(text, 'utf8'),
  ]);
  const data = deflated ? deflateRawSync(bytes) : bytes;
  const loaded = await loadSheetXml(data, deflated ? 8 : 0, bytes.length, chunk);
  return { loaded, whole: new SheetXml(text) };
}

describe('a sheet part read a chunk at a time', () => {
  it('is the sheet its whole text gives, cut anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('', 'x:'),
        fc.array(fc.nat(3), { maxLength: 40 }),
        fc.integer({ min: 1, max: 97 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 1200 }),
        fc.boolean(),
        async (prefix, gaps, chunk, deflated, bom, count, pretty) => {
          const rows = fc.sample(rowArb(prefix), { numRuns: count, seed: count + gaps.length });
          const text = sheetText(prefix, rows, gaps, pretty);
          const { loaded, whole } = await bothWays(text, chunk, deflated, bom);
          expect(loaded).not.toBeNull();
          const sheet = loaded as SheetXml;
          expect(sheet.toString()).toBe(whole.toString());
          expect(sheet.lastRowNumber).toBe(whole.lastRowNumber);
          for (const n of [1, 2, Math.floor(whole.lastRowNumber / 2), whole.lastRowNumber])
            expect(sheet.row(n)?.xml).toBe(whole.row(n)?.xml);
          // Its pieces come closed; compressing them again writes what the text reader's would.
          expect(
            Buffer.concat((await sheet.compress()).chunks).equals(
              Buffer.concat((await whole.compress()).chunks),
            ),
          ).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('reads an empty sheet, and leaves rows out of order to the text reader', async () => {
    const empty = '<worksheet><sheetData/><pageMargins/></worksheet>';
    expect((await bothWays(empty, 5, true, false)).loaded?.toString()).toBe(new SheetXml(empty).toString());
    const unordered = '<worksheet><sheetData><row r="2"/><row r="1"/></sheetData></worksheet>';
    expect((await bothWays(unordered, 7, true, false)).loaded).toBeNull();
  });
});

describe('whether a piece may hold a formula, asked of its bytes', () => {
  it('answers as the question asked of its text', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[<:fx\s>/é"=]{0,40}$/), (text) => {
        expect(mayHoldFormulaBytes(Buffer.from(text, 'utf8'))).toBe(mayHoldFormula(text));
      }),
      { numRuns: 2000 },
    );
    for (const text of [
      '<c><f>A1</f></c>',
      '<x:c><x:f t="shared" si="0"/></x:c>',
      'a:f b',
      '<c t="s"><v>f</v></c>',
    ])
      expect(mayHoldFormulaBytes(Buffer.from(text))).toBe(mayHoldFormula(text));
  });
});
