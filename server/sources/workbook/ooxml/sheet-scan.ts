/**
 * The cells of a worksheet part, read fast, straight from its UTF-8 bytes. A worksheet's `<sheetData>` is a
 * flat, regular grammar (rows of cells holding a formula, a value or an inline string), so a scanner that walks
 * its bytes reads a sheet many times faster than a general XML parser, makes no string for a number or a
 * shared string's index, and allocates nothing per cell. Anything outside that grammar inside `<sheetData>`
 * (comments, CDATA, processing instructions, a DTD before it, an entity it does not know) sends the whole part
 * to saxes instead (sheet-scan-saxes.ts), so no file reads differently for being unusual: only slower.
 *
 * The part may come whole or a chunk at a time as it inflates (sheet-scan-stream.ts cuts it at row ends).
 * What a cell reports is the file's own text: its `t` attribute, its `<v>` text or inline string (runs joined,
 * phonetic guides left out), its style id and its formula; `decodeCell` (cell-decode.ts) turns that into a
 * value. A sink that takes plain numbers and shared string indexes (`FastCellSink`) gets those cells without
 * the text. The scanner itself is sheet-scanner.ts; its byte primitives are in sheet-scan-text.ts.
 */
import type { CellSink, SheetScan } from './scanned-cell.ts';
import { scanWithSaxes } from './sheet-scan-saxes.ts';
import { SheetStream } from './sheet-scan-stream.ts';
import { Unsupported } from './sheet-scan-text.ts';
import { SheetScanner } from './sheet-scanner.ts';

/** Reads every cell of the worksheet XML `xml` (text or UTF-8 bytes), in file order, into `sink`. */
export function scanSheet(xml: string | Uint8Array, sink: CellSink): SheetScan {
  const bytes = typeof xml === 'string' ? Buffer.from(xml, 'utf8') : asBuffer(xml);
  try {
    const stream = new SheetStream(new SheetScanner(sink));
    stream.push(bytes);
    return stream.end();
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
  }
  sink.reset();
  return scanWithSaxes(typeof xml === 'string' ? xml : withoutBom(bytes.toString('utf8')), sink);
}

/**
 * Reads the cells of a worksheet part that comes a chunk at a time; null when the part needs the full XML
 * parser (the sink must then be reset, and the part read whole with `scanSheet`).
 */
export async function scanSheetChunks(
  chunks: AsyncIterable<Buffer>,
  sink: CellSink,
): Promise<SheetScan | null> {
  const stream = new SheetStream(new SheetScanner(sink));
  try {
    for await (const chunk of chunks) stream.push(chunk);
    return stream.end();
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length);
const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
