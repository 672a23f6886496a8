/**
 * The zip layer of the surgical engine: a rewritten package copies untouched entries byte for byte, and a
 * worksheet deflated in independent pieces is one valid deflate stream with the right CRC, also after
 * later edits that reuse the unchanged leading pieces.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SheetXml } from '../../../../server/sources/workbook/ooxml/sheet-xml.ts';
import { ZipArchive } from '../../../../server/sources/workbook/ooxml/zip-archive.ts';
import { type PartChanges, writeZip } from '../../../../server/sources/workbook/ooxml/zip-writer.ts';

function sheetText(rows: number): string {
  let body = '';
  for (let r = 1; r <= rows; r++) body += `<row r="${r}"><c r="A${r}"><v>${r * 7}</v></c></row>`;
  return `<?xml version="1.0"?><worksheet><sheetData>${body}</sheetData><pageMargins/></worksheet>`;
}

describe('the surgical zip layer', () => {
  it('deflates a sheet in pieces that inflate to the whole text, before and after edits', async () => {
    const sheet = new SheetXml(sheetText(7001));
    const check = async () => {
      const out = await sheet.compress();
      // Read after compressing: the text comes back from the closed pieces.
      const text = Buffer.from(sheet.toString(), 'utf8');
      expect(inflateRawSync(Buffer.concat(out.chunks)).equals(text)).toBe(true);
      expect(out.crc32).toBe(crc32(text));
      expect(out.size).toBe(text.length);
      return out;
    };
    const first = await check();
    const slot = sheet.ensureRow(7002);
    slot.xml = '<row r="7002"><c r="A7002" t="inlineStr"><is><t>appended</t></is></c></row>';
    const second = await check();
    // The leading pieces were reused: the streams share their first bytes up to the last piece.
    expect(
      Buffer.concat(first.chunks).subarray(0, 1000).equals(Buffer.concat(second.chunks).subarray(0, 1000)),
    ).toBe(true);
    const middle = sheet.row(3500);
    if (middle) middle.xml = '<row r="3500"><c r="A3500"><v>1</v></c></row>';
    const third = await check();
    // The pieces after the changed one were reused too (their CRCs combined, their bytes copied).
    expect(
      Buffer.concat(third.chunks).subarray(-2000).equals(Buffer.concat(second.chunks).subarray(-2000)),
    ).toBe(true);
    for (const row of [1, 6999, 7002, 250]) {
      const slot = sheet.row(row);
      if (slot) slot.xml = `<row r="${row}"><c r="B${row}"><v>${row}</v></c></row>`;
      await check();
    }
  });

  it('copies the entries it is not given, with their compressed bytes, and writes the rest fresh', () => {
    const sheet = Buffer.from(sheetText(10));
    const zip = (archive: ZipArchive, changes: PartChanges) => Buffer.concat(writeZip(archive, changes));
    const original = zip(
      ZipArchive.open(zip(emptyArchive(), new Map())),
      new Map([
        ['[Content_Types].xml', Buffer.from('<Types/>')],
        ['xl/worksheets/sheet1.xml', sheet],
        ['xl/media/image1.png', Buffer.from([1, 2, 3])],
      ]),
    );
    const before = ZipArchive.open(original);
    const after = ZipArchive.open(
      zip(before, new Map([['xl/worksheets/sheet1.xml', Buffer.from(sheetText(11))]])),
    );
    expect(after.entries.map((e) => e.name)).toEqual(before.entries.map((e) => e.name));
    expect(
      after.entry('xl/media/image1.png')?.local.equals(before.entry('xl/media/image1.png')?.local as Buffer),
    ).toBe(true);
    expect(after.text('xl/worksheets/sheet1.xml')).toBe(sheetText(11));
    expect([...(after.read('xl/media/image1.png') ?? [])]).toEqual([1, 2, 3]);
  });
});

function emptyArchive(): ZipArchive {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  return ZipArchive.open(end);
}
