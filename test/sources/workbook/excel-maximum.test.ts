/**
 * Excel's tallest sheet connects and serves with the default file limits, through real HTTP: 1,048,575 data
 * rows by 10 columns as an .xlsx (past the cell and unpacked-size limits this service once had) and as a CSV of
 * the same rows (past the file-size limit it once had). The files are made in the test (test/helpers/
 * tall-sheet.ts); their cells say where they are, so the last row read back is checked exactly.
 */
import { constants as bufferConstants } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readZipDirectory } from '../../../server/sources/workbook/guard/zip-directory.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';
import {
  EXCEL_DATA_ROWS,
  tallCell,
  tallColumns,
  writeTallCsv,
  writeTallXlsx,
} from '../../helpers/tall-sheet.ts';

const MB = 1024 * 1024;
const COLUMNS = 10;

/** The last data row as the API answers it. */
const lastRow = () =>
  Object.fromEntries(tallColumns(COLUMNS).map((name, i) => [name, tallCell(EXCEL_DATA_ROWS, i + 1)]));

async function readLastRow(h: Harness, file: string, tab: string) {
  const connection = await h.connect(file);
  const res = await h.fetch(rowsPath(connection, tab, `?offset=${EXCEL_DATA_ROWS - 1}&limit=5`));
  return { status: res.status, body: await res.json() };
}

describe("Excel's tallest sheet, with the default file limits", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('reads a 1,048,575-row, 10-column .xlsx and answers its last row', async () => {
    h = await startHarness();
    const file = path.join(h.dir, 'tall.xlsx');
    await writeTallXlsx(file, COLUMNS);
    // Past what was refused before: 10,000,000 cells, 300 MB unpacked.
    expect(EXCEL_DATA_ROWS * COLUMNS).toBeGreaterThan(10_000_000);
    const unpacked = readZipDirectory(readFileSync(file)).reduce((sum, e) => sum + e.uncompressedSize, 0);
    expect(unpacked).toBeGreaterThan(300 * MB);

    const { status, body } = await readLastRow(h, file, 'Rows');
    expect(status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body).toEqual([lastRow()]);
  }, 240_000);

  it('reads a CSV of the same rows and answers its last row', async () => {
    h = await startHarness();
    const file = path.join(h.dir, 'tall.csv');
    await writeTallCsv(file, COLUMNS);
    // Past what was refused before: a 100 MB file.
    expect(statSync(file).size).toBeGreaterThan(100 * MB);

    const { status, body } = await readLastRow(h, file, 'tall');
    expect(status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body).toEqual([lastRow()]);
  }, 240_000);

  it('reads a sheet part longer than any text can be, and writes to it', async () => {
    h = await startHarness();
    const file = path.join(h.dir, 'long.xlsx');
    // 120,000 rows of about 4.7 KB of XML each (mostly an extension list a reader skips): as long as openpyxl
    // writes Excel's tallest sheet of ten columns.
    const rows = 120_000;
    await writeTallXlsx(file, 2, rows, { padBytes: 4_700 });
    const part = readZipDirectory(readFileSync(file)).find((e) => e.name === 'xl/worksheets/sheet1.xml')!;
    expect(part.uncompressedSize).toBeGreaterThan(bufferConstants.MAX_STRING_LENGTH);
    // Packed as real sheets pack, not as a zip bomb: the default ratio limit holds.
    expect(part.uncompressedSize / part.compressedSize).toBeLessThan(200);

    const connection = await h.connect(file);
    const last = await h.fetch(rowsPath(connection, 'Rows', `?offset=${rows - 1}&limit=5`));
    expect(last.status, await last.clone().text()).toBe(200);
    expect(last.headers.get('x-total-count')).toBe(String(rows));
    expect(await last.json()).toEqual([{ c1: tallCell(rows, 1), c2: tallCell(rows, 2) }]);

    const added = await h.fetch(rowsPath(connection, 'Rows'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ c1: -1, c2: -2 }),
    });
    expect(added.status).toBe(201);
    // Another reader of the written file: Python's zipfile (every CRC checked) streams the part and counts its
    // rows; the last is the one added.
    const read = JSON.parse(await runPython(COUNT_ROWS, [file]));
    expect(read).toEqual({
      rows: rows + 2,
      last: `<row r="${rows + 2}"><c r="A${rows + 2}"><v>-1</v></c><c r="B${rows + 2}"><v>-2</v></c></row>`,
    });

    // The same part with a comment among its rows must be read whole by the full XML parser, as no text of its
    // length can be: refused with the reason, not a failure.
    const commented = path.join(h.dir, 'commented.xlsx');
    await writeTallXlsx(commented, 2, rows, { padBytes: 4_700, comment: true });
    const refused = await h.fetch(rowsPath(await h.connect(commented), 'Rows', '?limit=1'));
    const body = await refused.json();
    expect(refused.status).toBe(502);
    expect(body.error.reason).toBe('too_large');
    expect(body.error.message).toMatch(
      /^Could not read workbook: its part "xl\/worksheets\/sheet1.xml" unpacks to 5\d\d MB, and this part can only be read whole/,
    );
  }, 240_000);
});

/** The sheet part streamed through zlib: its `<row` count and its last row's XML. */
const COUNT_ROWS = `
import json, re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open('xl/worksheets/sheet1.xml') as part:
    rows, tail = 0, b''
    while True:
        chunk = part.read(1 << 20)
        if not chunk:
            break
        # The 4 bytes kept from the chunk before hold no whole '<row ', and with this one any split across.
        rows += (tail[-4:] + chunk).count(b'<row ')
        tail = (tail + chunk)[-4096:]
    last = re.findall(rb'<row [^>]*>.*?</row>', tail)[-1].decode()
    print(json.dumps({'rows': rows, 'last': last}))
`;
