/**
 * A tab's texts get their ids by look-up only in columns where texts repeat (text-ids.ts): a column of distinct
 * texts stops looking up, one of repeated texts keeps one string per text, and one that starts repeating later
 * looks up again. Read through the byte scanner into the tab builder, every value is the same either way, and a
 * formula reading a date sees its serial.
 */
import { describe, expect, it } from 'vitest';
import { cellRow } from '../../../../server/sources/workbook/encoded-tab.ts';
import type { ReadContext } from '../../../../server/sources/workbook/ooxml/cell-decode.ts';
import { scanSheet } from '../../../../server/sources/workbook/ooxml/sheet-scan.ts';
import { StylesPart } from '../../../../server/sources/workbook/ooxml/styles-part.ts';
import { TabBuilder } from '../../../../server/sources/workbook/ooxml/tab-builder.ts';
import { TextIds } from '../../../../server/sources/workbook/ooxml/text-ids.ts';

/** Texts of one column through the ids, as the builder asks: a look-up when told to, else a new id. */
function idsOf(ids: TextIds, column: number, texts: readonly string[]): { ids: number[]; lookedUp: number } {
  let lookedUp = 0;
  const out = texts.map((text) => {
    if (!ids.lookUp(column)) return ids.add(text);
    lookedUp++;
    return ids.idOf(text, column);
  });
  return { ids: out, lookedUp };
}

const distinct = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}-${i}`);
const repeated = (n: number, values: readonly string[]) =>
  Array.from({ length: n }, (_, i) => values[i % values.length]!);

describe('text ids', () => {
  it('a column of distinct texts stops looking them up; one of repeated texts keeps one id a text', () => {
    const ids = new TextIds();
    const unique = idsOf(ids, 2, distinct(100_000, 'ref'));
    // One window of look-ups, then one in 64 sampled.
    expect(unique.lookedUp).toBeLessThan(4_096 + 100_000 / 64 + 1);
    expect(new Set(unique.ids).size).toBe(100_000);

    const names = idsOf(ids, 3, repeated(100_000, ['Ada', 'Grace', 'Alan']));
    expect(names.lookedUp).toBe(100_000);
    expect(new Set(names.ids).size).toBe(3);
    names.ids.forEach((id, i) => {
      expect(ids.strings[id]).toBe(['Ada', 'Grace', 'Alan'][i % 3]);
    });
  });

  it('a column that starts repeating its texts looks them up again', () => {
    const ids = new TextIds();
    idsOf(ids, 1, distinct(20_000, 'note'));
    expect(ids.lookUp(1) && ids.lookUp(1)).toBe(false);
    const later = idsOf(ids, 1, repeated(400_000, ['yes', 'no']));
    // Back to look-ups once a sampled window found the texts repeating: the last ones share two ids.
    const tail = later.ids.slice(-10_000);
    expect(new Set(tail).size).toBe(2);
    tail.forEach((id, i) => {
      expect(ids.strings[id]).toBe(['yes', 'no'][(400_000 - 10_000 + i) % 2]);
    });
  });
});

const STYLES = new StylesPart(
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
    '<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd h:mm:ss"/></numFmts>' +
    '<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>',
);

describe('a tab of distinct and repeated texts and dates', () => {
  it('reads every value alike, with one string per repeated text', () => {
    const rows = 20_000;
    const names = ['Ada', 'Grace', 'Alan', 'Edsger'];
    const xml: string[] = [
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>',
      '<row r="1"><c r="A1" t="inlineStr"><is><t>Ref</t></is></c><c r="B1" t="inlineStr"><is><t>Name</t></is></c>',
      '<c r="C1" t="inlineStr"><is><t>At</t></is></c><c r="D1" t="inlineStr"><is><t>Day</t></is></c></row>',
    ];
    for (let r = 2; r < rows + 2; r++) {
      xml.push(
        `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>REF-${r}</t></is></c>`,
        `<c r="B${r}" t="inlineStr"><is><t>${names[r % 4]}</t></is></c>`,
        // Distinct date-times (a log), then a few days repeated.
        `<c r="C${r}" s="1"><v>${45_000 + r / 1_440}</v></c><c r="D${r}" s="1"><v>${45_000 + (r % 5)}</v></c></row>`,
      );
    }
    xml.push('</sheetData></worksheet>');
    const ctx: ReadContext = { date1904: false, styles: STYLES, sharedString: () => '' };
    const builder = new TabBuilder(ctx, 0);
    scanSheet(xml.join(''), builder);
    // What a formula reading a date-time sees, also past the rows its column looked up: the serial.
    const cells = builder.sheetCells('Log');
    for (const r of [2, 10_002]) {
      expect(cells.value(r, 3)).toBe(45_000 + r / 1_440);
      expect(cells.value(r, 4)).toBe(45_000 + (r % 5));
    }
    const tab = builder.finish('1', 'Log', []);

    expect(tab.header).toEqual(['Ref', 'Name', 'At', 'Day']);
    // As the service shows a date-time: the day alone at midnight.
    const iso = (serial: number) => {
      const text = new Date(Math.round((serial - 25_569) * 86_400_000)).toISOString().slice(0, 19);
      return text.endsWith('T00:00:00') ? text.slice(0, 10) : text;
    };
    for (const r of [0, 1, 4_095, 4_096, 10_000, rows - 1]) {
      const sheetRow = r + 2;
      expect(cellRow(tab, r)).toEqual([
        `REF-${sheetRow}`,
        names[sheetRow % 4],
        iso(45_000 + sheetRow / 1_440),
        iso(45_000 + (sheetRow % 5)),
      ]);
    }
    // One string per name and per day, however many cells show them.
    const idsIn = (column: number) =>
      new Set(Array.from({ length: rows }, (_, r) => tab.values[r * tab.columns + column]));
    expect(idsIn(1).size).toBe(4);
    expect(idsIn(3).size).toBe(5);
    expect(idsIn(0).size).toBe(rows);
  });
});
