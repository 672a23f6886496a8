/**
 * Excel's tallest sheet, written fast: 1,048,575 data rows under a header, as an .xlsx laid out as Excel lays
 * one out (shared strings for the header, cell references on every cell and row) or as a CSV. The cells are
 * whole numbers that say where they are (data row r, column c holds r * 1000 + c), so any row read back can be
 * checked without keeping the rows. The sheet is deflated as it is made, at deflate's fastest level.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { ZipOut } from './zip-out.ts';

export const EXCEL_DATA_ROWS = 1_048_575;

/** Column names `c1`..`cN`. */
export const tallColumns = (columns: number): string[] =>
  Array.from({ length: columns }, (_, i) => `c${i + 1}`);

/** The cell of data row `row` (1-based, the first under the header) in column `column` (1-based). */
export const tallCell = (row: number, column: number): number => row * 1000 + column;

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"';
const TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

const letters = (index: number): string =>
  index < 26 ? String.fromCharCode(65 + index) : letters(Math.floor(index / 26) - 1) + letters(index % 26);

/**
 * What a row's first cell may carry after its value, for a sheet part larger than a text can be: an extension
 * list (`<extLst>`, which a reader skips) of `bytes` bytes, mostly one repeated text with a little that differs
 * row to row, so it packs about as well as real sheet XML does (not the thousand to one of a zip bomb).
 */
function padding(row: number, bytes: number): string {
  const varied = createHash('sha256').update(String(row)).digest('hex').repeat(3);
  const fill = 'padding '.repeat(Math.ceil(bytes / 8)).slice(0, Math.max(0, bytes - varied.length - 60));
  return `<extLst><ext uri="{sheetport-test}"><x v="${varied}${fill}"/></ext></extLst>`;
}

/** What the sheet may hold besides its cells: `padBytes` of skipped XML a row (`padding`), a comment after the header. */
export interface TallExtras {
  padBytes?: number;
  comment?: boolean;
}

function* sheetXml(columns: number, rows: number, { padBytes = 0, comment }: TallExtras): Generator<Buffer> {
  const refs = Array.from({ length: columns }, (_, c) => letters(c));
  const header = refs.map((ref, c) => `<c r="${ref}1" t="s"><v>${c}</v></c>`).join('');
  let pending = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet ${NS}><sheetData><row r="1">${header}</row>${comment ? '<!-- the rows -->' : ''}`;
  for (let r = 1; r <= rows; r++) {
    const at = r + 1;
    let cells = '';
    for (let c = 0; c < columns; c++) {
      const pad = c === 0 && padBytes > 0 ? padding(r, padBytes) : '';
      cells += `<c r="${refs[c]}${at}"><v>${tallCell(r, c + 1)}</v>${pad}</c>`;
    }
    pending += `<row r="${at}">${cells}</row>`;
    if (pending.length > 1 << 20) {
      yield Buffer.from(pending, 'latin1');
      pending = '';
    }
  }
  yield Buffer.from(`${pending}</sheetData></worksheet>`, 'latin1');
}

export async function writeTallXlsx(
  file: string,
  columns: number,
  rows = EXCEL_DATA_ROWS,
  extras: TallExtras = {},
): Promise<void> {
  const zip = new ZipOut(file);
  try {
    zip.small(
      '[Content_Types].xml',
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="${TYPE}.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="${TYPE}.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="${TYPE}.sharedStrings+xml"/></Types>`,
    );
    zip.small(
      '_rels/.rels',
      `<Relationships ${PKG_REL}><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    );
    zip.small(
      'xl/workbook.xml',
      `<workbook ${NS} xmlns:r="${REL}"><sheets><sheet name="Rows" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    );
    zip.small(
      'xl/_rels/workbook.xml.rels',
      `<Relationships ${PKG_REL}><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    );
    const names = tallColumns(columns);
    zip.small(
      'xl/sharedStrings.xml',
      `<sst ${NS} count="${columns}" uniqueCount="${columns}">${names.map((n) => `<si><t>${n}</t></si>`).join('')}</sst>`,
    );
    await zip.streamed('xl/worksheets/sheet1.xml', sheetXml(columns, rows, extras), 1);
  } finally {
    zip.close();
  }
}

export async function writeTallCsv(file: string, columns: number, rows = EXCEL_DATA_ROWS): Promise<void> {
  const out = createWriteStream(file);
  let pending = `${tallColumns(columns).join(',')}\r\n`;
  for (let r = 1; r <= rows; r++) {
    for (let c = 1; c <= columns; c++)
      pending += c < columns ? `${tallCell(r, c)},` : `${tallCell(r, c)}\r\n`;
    if (pending.length > 1 << 20) {
      if (!out.write(pending)) await once(out, 'drain');
      pending = '';
    }
  }
  out.end(pending);
  await once(out, 'finish');
}
