/**
 * Writes a real .xlsx whose one sheet inflates to `sheetMb` megabytes of XML: a zip bomb, built by streaming
 * deflate to disk (a few hundred MB of XML never sits in memory). With `declaredSheetBytes` the zip headers
 * lie about the sheet's size, as a crafted bomb's would. `writeSharedStringsBomb` puts the bomb in the shared
 * strings instead, `writeManySheetsBomb` points many parts at the same packed data or spreads a bomb over many
 * small parts, and `writeManyParts` writes a package of very many tiny parts.
 */
import { crc32, deflateRawSync } from 'node:zlib';
import { type Written, ZipOut } from './zip-out.ts';

export const PARTS: [string, string][] = [
  [
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
      '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' +
      '</Types>',
  ],
  [
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
      '</Relationships>',
  ],
  [
    'xl/workbook.xml',
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
      '<sheets><sheet name="Bomb" sheetId="1" r:id="rId1"/></sheets></workbook>',
  ],
  [
    'xl/_rels/workbook.xml.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
      '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>' +
      '</Relationships>',
  ],
];

const MAIN_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const SMALL_SHARED_STRINGS = `<?xml version="1.0" encoding="UTF-8"?><sst ${MAIN_NS}><si><t>n</t></si></sst>`;

/** `text` repeated until `mb` megabytes, as chunks. */
function* repeatedText(text: string, mb: number): Generator<Buffer> {
  const chunk = Buffer.from(text.repeat(Math.ceil((1024 * 1024) / text.length)));
  for (let made = 0; made < mb * 1024 * 1024; made += chunk.length) yield chunk;
}

const SHEET_HEAD =
  `<?xml version="1.0" encoding="UTF-8"?><worksheet ${MAIN_NS}><sheetData>` +
  '<row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row>';
const SHEET_TAIL = '</sheetData></worksheet>';

export async function writeZipBomb(
  file: string,
  options: { sheetMb: number; declaredSheetBytes?: number; numberedRows?: boolean; emptyCells?: boolean },
): Promise<void> {
  const zip = new ZipOut(file);
  try {
    for (const [name, xml] of PARTS) zip.small(name, xml);
    zip.small('xl/sharedStrings.xml', SMALL_SHARED_STRINGS);
    // The sheet: a header, then one-cell rows until the size is reached, deflated as it streams out.
    // Repeated rows compress about 400:1 (a real bomb); numbered rows parse, slowly, and compress about 10:1
    // (with `emptyCells` every cell is empty: slow to parse, and nothing to hold once read).
    function* sheet(): Generator<Buffer> {
      yield Buffer.from(SHEET_HEAD);
      if (!options.numberedRows) yield* repeatedText('<row><c><v>1</v></c></row>', options.sheetMb);
      else {
        const target = options.sheetMb * 1024 * 1024;
        for (let made = 0, rowNumber = 2; made < target; ) {
          const rows: string[] = [];
          for (let i = 0; i < 2000; i++, rowNumber++)
            rows.push(
              options.emptyCells
                ? `<row r="${rowNumber}"><c r="A${rowNumber}"/></row>`
                : `<row r="${rowNumber}"><c r="A${rowNumber}"><v>1</v></c></row>`,
            );
          const chunk = Buffer.from(rows.join(''));
          made += chunk.length;
          yield chunk;
        }
      }
      yield Buffer.from(SHEET_TAIL);
    }
    await zip.streamed(
      'xl/worksheets/sheet1.xml',
      sheet(),
      options.numberedRows ? 1 : 9,
      options.declaredSheetBytes,
    );
  } finally {
    zip.close();
  }
}

/**
 * A workbook whose shared strings unpack to `mb` megabytes of one short text repeated (declared as
 * `declaredBytes` when set), under a one-row sheet that uses the first.
 */
export async function writeSharedStringsBomb(file: string, options: { mb: number; declaredBytes?: number }) {
  const zip = new ZipOut(file);
  try {
    for (const [name, xml] of PARTS) zip.small(name, xml);
    zip.small(
      'xl/worksheets/sheet1.xml',
      `${SHEET_HEAD}<row r="2"><c r="A2" t="s"><v>0</v></c></row>${SHEET_TAIL}`,
    );
    function* strings(): Generator<Buffer> {
      yield Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><sst ${MAIN_NS}>`);
      yield* repeatedText('<si><t>x</t></si>', options.mb);
      yield Buffer.from('</sst>');
    }
    await zip.streamed('xl/sharedStrings.xml', strings(), 9, options.declaredBytes);
  } finally {
    zip.close();
  }
}

/**
 * A workbook of `sheets` tabs of `sheetMb` megabytes each once unpacked. `overlapping`: every sheet part points at
 * the same packed data (numbered rows, packing as real rows do), so the file is as small as one sheet. `copies`:
 * each sheet has its own copy of rows that pack about 400:1, each part small enough to pass for a small one.
 */
export async function writeManySheetsBomb(
  file: string,
  options: { sheets: number; sheetMb: number; kind: 'overlapping' | 'copies' },
) {
  const zip = new ZipOut(file);
  const sheetName = (i: number) => `xl/worksheets/sheet${i}.xml`;
  const sheets = Array.from({ length: options.sheets }, (_, i) => i + 1);
  try {
    zip.small(
      '[Content_Types].xml',
      (PARTS[0]![1] as string).replace(
        '</Types>',
        `${sheets.map((i) => `<Override PartName="/${sheetName(i)}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')}</Types>`,
      ),
    );
    zip.small(PARTS[1]![0], PARTS[1]![1]);
    zip.small(
      'xl/workbook.xml',
      `<workbook ${MAIN_NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${sheets.map((i) => `<sheet name="Bomb${i}" sheetId="${i}" r:id="rId${i}"/>`).join('')}</sheets></workbook>`,
    );
    zip.small(
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets.map((i) => `<Relationship Id="rId${i}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i}.xml"/>`).join('')}</Relationships>`,
    );
    if (options.kind === 'copies') {
      const xml = Buffer.concat([
        Buffer.from(SHEET_HEAD),
        ...repeatedText('<row><c><v>1</v></c></row>', options.sheetMb),
        Buffer.from(SHEET_TAIL),
      ]);
      const packed = deflateRawSync(xml, { level: 9 });
      const crc = crc32(xml);
      for (const i of sheets) zip.packed(sheetName(i), packed, crc, xml.length);
    } else {
      function* rows(): Generator<Buffer> {
        yield Buffer.from(SHEET_HEAD);
        const target = options.sheetMb * 1024 * 1024;
        for (let made = 0, r = 2; made < target; ) {
          const chunk: string[] = [];
          for (let i = 0; i < 2000; i++, r++) chunk.push(`<row r="${r}"><c r="A${r}"><v>${r}</v></c></row>`);
          const bytes = Buffer.from(chunk.join(''));
          made += bytes.length;
          yield bytes;
        }
        yield Buffer.from(SHEET_TAIL);
      }
      await zip.streamed(sheetName(1), rows(), 6);
    }
  } catch (e) {
    zip.close();
    throw e;
  }
  if (options.kind === 'copies') zip.close();
  else {
    const shared = zip.written.at(-1) as Written;
    zip.close([...zip.written, ...sheets.slice(1).map((i) => ({ ...shared, name: sheetName(i) }))]);
  }
}

/** A workbook of a one-cell sheet followed by `count` tiny stored parts: a package of very many parts. */
export function writeManyParts(file: string, count: number): void {
  const zip = new ZipOut(file);
  try {
    for (const [name, xml] of PARTS) zip.small(name, xml);
    zip.small('xl/worksheets/sheet1.xml', `${SHEET_HEAD}${SHEET_TAIL}`);
    for (let i = 0; i < count; i++) zip.small(`customXml/item${i}.xml`, '<a/>');
  } finally {
    zip.close();
  }
}
