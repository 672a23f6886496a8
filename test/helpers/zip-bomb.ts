/**
 * Writes a real .xlsx whose one sheet inflates to `sheetMb` megabytes of XML: a zip bomb, built by streaming
 * deflate to disk (a few hundred MB of XML never sits in memory). With `declaredSheetBytes` the zip headers
 * lie about the sheet's size, as a crafted bomb's would.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

const PARTS: [string, string][] = [
  [
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
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
      '</Relationships>',
  ],
];

interface Written {
  name: string;
  offset: number;
  crc: number;
  compressed: number;
  uncompressed: number;
}

function localHeader(name: string, crc: number, compressed: number, uncompressed: number): Buffer {
  const nameBytes = Buffer.from(name);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(8, 8); // deflate
  header.writeUInt32LE(crc >>> 0, 14);
  header.writeUInt32LE(compressed, 18);
  header.writeUInt32LE(uncompressed, 22);
  header.writeUInt16LE(nameBytes.length, 26);
  return Buffer.concat([header, nameBytes]);
}

function centralHeader(entry: Written, declared: number): Buffer {
  const nameBytes = Buffer.from(entry.name);
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(8, 10);
  header.writeUInt32LE(entry.crc >>> 0, 16);
  header.writeUInt32LE(entry.compressed, 20);
  header.writeUInt32LE(declared, 24);
  header.writeUInt16LE(nameBytes.length, 28);
  header.writeUInt32LE(entry.offset, 42);
  return Buffer.concat([header, nameBytes]);
}

export async function writeZipBomb(
  file: string,
  options: { sheetMb: number; declaredSheetBytes?: number; numberedRows?: boolean; emptyCells?: boolean },
): Promise<void> {
  const out = fs.openSync(file, 'w');
  let position = 0;
  const put = (bytes: Buffer) => {
    fs.writeSync(out, bytes, 0, bytes.length, position);
    position += bytes.length;
  };
  const written: Written[] = [];
  try {
    for (const [name, xml] of PARTS) {
      const data = Buffer.from(xml);
      const compressed = deflateRawSync(data);
      const entry = {
        name,
        offset: position,
        crc: crc32(data),
        compressed: compressed.length,
        uncompressed: data.length,
      };
      put(localHeader(name, entry.crc, entry.compressed, entry.uncompressed));
      put(compressed);
      written.push(entry);
    }

    // The sheet: a header, then one-cell rows until the size is reached, deflated as it streams out.
    // Repeated rows compress about 150:1 (a real bomb); numbered rows parse, slowly, and compress about 10:1
    // (with `emptyCells` every cell is empty: slow to parse, and nothing to hold once read).
    const name = 'xl/worksheets/sheet1.xml';
    const offset = position;
    put(localHeader(name, 0, 0, 0)); // sizes patched below
    const head = Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
        '<row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row>',
    );
    const tail = Buffer.from('</sheetData></worksheet>');
    const deflate = createDeflateRaw({ level: 1 });
    let compressed = 0;
    deflate.on('data', (chunk: Buffer) => {
      put(chunk);
      compressed += chunk.length;
    });
    let crc = 0;
    let uncompressed = 0;
    const feed = async (chunk: Buffer) => {
      crc = crc32(chunk, crc);
      uncompressed += chunk.length;
      if (!deflate.write(chunk)) await once(deflate, 'drain');
    };
    await feed(head);
    const target = options.sheetMb * 1024 * 1024;
    let rowNumber = 2;
    const repeated = Buffer.from('<row><c><v>1</v></c></row>'.repeat(40_000));
    while (uncompressed < target && !options.numberedRows) await feed(repeated);
    while (uncompressed < target) {
      const rows: string[] = [];
      for (let i = 0; i < 2000; i++, rowNumber++)
        rows.push(
          options.emptyCells
            ? `<row r="${rowNumber}"><c r="A${rowNumber}"/></row>`
            : `<row r="${rowNumber}"><c r="A${rowNumber}"><v>1</v></c></row>`,
        );
      await feed(Buffer.from(rows.join('')));
    }
    await feed(tail);
    deflate.end();
    await once(deflate, 'end');
    const declared = options.declaredSheetBytes ?? uncompressed;
    fs.writeSync(out, localHeader(name, crc, compressed, declared), 0, 30, offset);
    written.push({ name, offset, crc, compressed, uncompressed: declared });

    const directoryStart = position;
    for (const entry of written) put(centralHeader(entry, entry.uncompressed));
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(written.length, 8);
    end.writeUInt16LE(written.length, 10);
    end.writeUInt32LE(position - directoryStart, 12);
    end.writeUInt32LE(directoryStart, 16);
    put(end);
  } finally {
    fs.closeSync(out);
  }
}
