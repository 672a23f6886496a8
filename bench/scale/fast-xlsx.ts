/**
 * A fast writer of one-tab .xlsx workbooks for the scale benchmark: Excel's largest sheet (1,048,575 data rows)
 * in seconds, where a general library takes minutes. It writes what Excel writes for such a sheet (shared
 * strings, a styles part with date and money formats, a bold header) and nothing else, through Node's own
 * deflate and CRC-32. The files are checked with openpyxl by the benchmark, not trusted.
 */
import { writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';
import type { Value } from '../data.ts';

export interface XlsxColumn {
  name: string;
  /** How a number in the column is shown: a date (values are ISO `YYYY-MM-DD` text), money, or as it is. */
  format?: 'date' | 'money';
  /** A formula in every data row, written as openpyxl writes one: its text only, no cached result. */
  formula?: (row: number) => string;
}

const escapeXml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));

/** A1 column letters of a zero-based column index. */
function letters(index: number): string {
  let out = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
}

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const serialOf = (isoDate: string): number => (Date.parse(`${isoDate}T00:00:00Z`) - EPOCH_1900) / DAY_MS;

/** Style indexes in styles.xml below: 0 plain, 1 bold (header), 2 date, 3 money. */
const STYLE = { plain: 0, bold: 1, date: 2, money: 3 } as const;

class SharedStrings {
  readonly #index = new Map<string, number>();
  readonly #list: string[] = [];
  count = 0;
  of(text: string): number {
    this.count++;
    let at = this.#index.get(text);
    if (at === undefined) {
      at = this.#list.length;
      this.#index.set(text, at);
      this.#list.push(text);
    }
    return at;
  }
  xml(): string {
    const items = this.#list.map((s) => `<si><t xml:space="preserve">${escapeXml(s)}</t></si>`).join('');
    return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${this.count}" uniqueCount="${this.#list.length}">${items}</sst>`;
  }
}

function cellXml(
  ref: string,
  value: Value,
  column: XlsxColumn,
  strings: SharedStrings,
  header: boolean,
  row: number,
): string {
  if (column.formula && !header) return `<c r="${ref}"><f>${escapeXml(column.formula(row))}</f></c>`;
  if (value === null || value === '') return '';
  if (header) return `<c r="${ref}" s="${STYLE.bold}" t="s"><v>${strings.of(String(value))}</v></c>`;
  if (column.format === 'date' && typeof value === 'string')
    return `<c r="${ref}" s="${STYLE.date}"><v>${serialOf(value)}</v></c>`;
  if (typeof value === 'number') {
    const style = column.format === 'money' ? ` s="${STYLE.money}"` : '';
    return `<c r="${ref}"${style}><v>${value}</v></c>`;
  }
  if (typeof value === 'boolean') return `<c r="${ref}" t="b"><v>${value ? 1 : 0}</v></c>`;
  return `<c r="${ref}" t="s"><v>${strings.of(value)}</v></c>`;
}

/** The sheet part in deflated pieces (a 1M-row sheet's XML is far larger than a string may be). */
function sheetPart(columns: XlsxColumn[], rows: Iterable<Value[]>, strings: SharedStrings): Entry {
  const refs = columns.map((_, i) => letters(i));
  let pending = '';
  let crc = 0;
  let size = 0;
  const deflated: Buffer[] = [];
  const raw: Buffer[] = [];
  const flush = (): void => {
    if (pending === '') return;
    const bytes = Buffer.from(pending, 'utf8');
    crc = crc32(bytes, crc);
    size += bytes.length;
    raw.push(bytes);
    pending = '';
  };
  const head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><sheetData>`;
  pending += head;
  let r = 1;
  const write = (values: Value[], header: boolean): void => {
    let cells = '';
    for (let c = 0; c < columns.length; c++)
      cells += cellXml(`${refs[c]}${r}`, values[c] ?? null, columns[c]!, strings, header, r);
    pending += `<row r="${r}">${cells}</row>`;
    r++;
    if (pending.length > 1 << 20) flush();
  };
  write(
    columns.map((c) => c.name),
    true,
  );
  for (const row of rows) write(row, false);
  pending += '</sheetData></worksheet>';
  flush();
  // One deflate over the whole part (Node's deflate takes a list by concatenation; 1M rows is ~150 MB of XML).
  deflated.push(deflateRawSync(Buffer.concat(raw), { level: 6 }));
  return { name: 'xl/worksheets/sheet1.xml', data: Buffer.concat(deflated), crc, size };
}

interface Entry {
  name: string;
  data: Buffer;
  crc: number;
  size: number;
}

function entry(name: string, text: string): Entry {
  const bytes = Buffer.from(text, 'utf8');
  return { name, data: deflateRawSync(bytes, { level: 6 }), crc: crc32(bytes), size: bytes.length };
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`;
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="&quot;$&quot;#,##0.00"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

const workbookXml = (tab: string): string =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${escapeXml(tab)}" sheetId="1" r:id="rId1"/></sheets></workbook>`;

/** The zip container (stored local headers, deflate method, no data descriptors, no zip64: parts < 4 GB). */
function zip(entries: Entry[]): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt32LE(0x00210000, 12);
    dir.writeUInt32LE(e.crc >>> 0, 16);
    dir.writeUInt32LE(e.data.length, 20);
    dir.writeUInt32LE(e.size, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    out.push(local, name, e.data);
    central.push(dir, name);
    offset += 30 + name.length + e.data.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, dirBytes, end]);
}

/** Writes `rows` under a bold header as the one tab `tab` of a new workbook at `file`. */
export function writeFastXlsx(
  file: string,
  tab: string,
  columns: XlsxColumn[],
  rows: Iterable<Value[]>,
): void {
  const strings = new SharedStrings();
  const sheet = sheetPart(columns, rows, strings);
  const entries = [
    entry('[Content_Types].xml', CONTENT_TYPES),
    entry('_rels/.rels', ROOT_RELS),
    entry('xl/workbook.xml', workbookXml(tab)),
    entry('xl/_rels/workbook.xml.rels', WORKBOOK_RELS),
    entry('xl/styles.xml', STYLES),
    sheet,
    entry('xl/sharedStrings.xml', strings.xml()),
  ];
  writeFileSync(file, zip(entries));
}
