/**
 * A worksheet's rows held in pieces that close to their deflated bytes between writes (sheet-xml.ts,
 * row-piece.ts): after any mix of edits, inserts into gaps, appends, deletes and compressions, the sheet reads
 * and writes exactly what a plain list of rows would, and the compressed part inflates to that text.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SheetXml } from '../../../../server/sources/workbook/ooxml/sheet-xml.ts';

/** A small deterministic generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const rowXml = (number: number, text: string) =>
  `<row r="${number}"><c r="A${number}" t="inlineStr"><is><t>${text}</t></is></c></row>`;

describe('a sheet kept in pieces', () => {
  it('matches a plain row list through random edits, with every piece closed and reopened between them', async () => {
    const next = random(7);
    // Rows 1..3000 with gaps (every seventh missing) and a few stored out of order; non-ASCII text too.
    let model = new Map<number, string>();
    const stored: string[] = [];
    for (let r = 1; r <= 3000; r++) {
      if (r % 7 === 0) continue;
      const xml = rowXml(r, `v${r} é€😀`);
      model.set(r, xml);
      stored.push(xml);
    }
    [stored[10], stored[11]] = [stored[11] as string, stored[10] as string];
    const head = '<?xml version="1.0"?><worksheet><dimension ref="A1:A3000"/><sheetData>';
    const tail = '</sheetData><pageMargins/></worksheet>';
    const sheet = new SheetXml(`${head}${stored.join('')}${tail}`);
    const expected = () =>
      head +
      [...model.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([, xml]) => xml)
        .join('') +
      tail;

    for (let round = 0; round < 40; round++) {
      const action = next();
      const number = 1 + Math.floor(next() * 3100);
      if (action < 0.4) {
        // Edit or create a row (a gap, the middle, past the end).
        const xml = rowXml(number, `round ${round}`);
        sheet.ensureRow(number).xml = xml;
        model.set(number, xml);
      } else if (action < 0.6) {
        const last = Math.max(0, ...model.keys());
        const xml = rowXml(last + 1, `appended ${round}`);
        sheet.ensureRow(last + 1).xml = xml;
        model.set(last + 1, xml);
      } else if (action < 0.75) {
        // Delete a row; the rows below move up.
        const moved = new Map<number, string>();
        for (const [r, xml] of model)
          if (r !== number) moved.set(r > number ? r - 1 : r, r > number ? rowXml(r - 1, xml) : xml);
        sheet.moveRows({
          rewrite: (slot) =>
            slot.number === number
              ? null
              : slot.number > number
                ? { number: slot.number - 1, xml: rowXml(slot.number - 1, slot.xml) }
                : slot,
          numbering: (r) => (r === number ? null : r > number ? r - 1 : r),
          unchangedAbove: 0,
        });
        model = moved;
      } else {
        expect(sheet.row(number)?.xml).toBe(model.get(number));
      }
      expect(sheet.lastRowNumber).toBe(Math.max(0, ...model.keys()));
      if (round % 3 === 0) {
        // Compress (which closes every piece), then check the bytes and read back through the closed pieces.
        const out = await sheet.compress();
        const bytes = Buffer.from(expected(), 'utf8');
        const inflated = inflateRawSync(Buffer.concat(out.chunks));
        expect(inflated.equals(bytes)).toBe(true);
        expect(out.crc32).toBe(crc32(bytes));
        expect(out.size).toBe(bytes.length);
        expect(out.compressedSize).toBe(out.chunks.reduce((n, c) => n + c.length, 0));
      }
      expect(sheet.toString()).toBe(expected());
    }
  });

  it('reuses the compressed bytes of every piece an append did not reach', async () => {
    let body = '';
    for (let r = 1; r <= 5000; r++) body += rowXml(r, `row ${r}`);
    const sheet = new SheetXml(`<worksheet><sheetData>${body}</sheetData></worksheet>`);
    const first = await sheet.compress();
    sheet.ensureRow(5001).xml = rowXml(5001, 'new');
    const second = await sheet.compress();
    // The last piece was full: the new row starts a piece of its own, and every earlier buffer is reused.
    expect(second.chunks.length).toBe(first.chunks.length + 1);
    expect(first.chunks.every((chunk) => second.chunks.includes(chunk))).toBe(true);
    // An edit in the middle recompresses that row's piece alone.
    (sheet.row(2600) as { xml: string }).xml = rowXml(2600, 'edited');
    const third = await sheet.compress();
    expect(third.chunks.filter((chunk) => !second.chunks.includes(chunk))).toHaveLength(1);
  });
});
