/**
 * A tab's text is measured as its cells hold it (tab-builder.ts `finish`): every text, date or error cell of the
 * data rows counts its text's length each time it is used, a shared string used ten times ten times, and the
 * header row not at all. At the limit it is read; one character under, refused in the limit's words.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { removeTempDirs, saveWorkbook, tempDir } from '../helpers.ts';

afterAll(removeTempDirs);

async function workbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Notes');
  ws.addRow(['A header long enough to matter', 'n']);
  for (let i = 0; i < 10; i++) ws.addRow(['repeated', i]); // 10 x 8
  ws.addRow(['once', 1]); // 4
  ws.addRow(['é ü', true]); // 3
  ws.addRow([{ error: '#N/A' }, 2]); // 4
  return readFile(await saveWorkbook(wb, path.join(await tempDir(), 'notes.xlsx')));
}

const TEXT = 10 * 8 + 4 + 3 + 4;

async function read(bytes: Buffer, maxTextChars: number) {
  const doc = await OoxmlDocument.parse(bytes, { maxCells: 1_000, maxTextChars });
  return doc.readTabs();
}

describe("a tab's text against the limit", () => {
  it('counts each use of a text, and not the header', async () => {
    const bytes = await workbook();
    const tabs = await read(bytes, TEXT);
    expect(tabs[0]!.encoded.rows).toBe(13);
    await expect(read(bytes, TEXT - 1)).rejects.toThrow(
      `holds more than ${TEXT - 1} characters of text once read, in its tab "Notes" (SHEETPORT_MAX_TEXT_MB).`,
    );
  });
});
