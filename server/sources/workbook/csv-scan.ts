/**
 * Splitting a CSV file's bytes into records and fields, with each record's place in the file (its first byte
 * and the byte after its text, line ending excluded), so a write can re-emit an untouched record byte for byte.
 *
 * The common case is read by a hand-written scanner over the bytes: fields split at the delimiter, records at LF
 * or CRLF, a field in quotes (`""` for a quote inside) closed right before a delimiter, a line ending or the end.
 * Anything else (a quote inside an unquoted field, text after a closing quote, a CR alone, a quote left open) is
 * read by csv-parse with the reader's historical options, which decide what such a file means; the scanner
 * never guesses. Both report the same records for every file the scanner accepts (test/sources/workbook/
 * csv-scan.test.ts compares them).
 */
import { parse } from 'csv-parse/sync';
import { AppError } from '../../errors.ts';

/** What a scan hands over, in order: each field of a record, then the record's end. */
export interface FieldSink {
  /** A field's text (a field in quotes, or any field csv-parse read). */
  text(field: string): void;
  /** A field without quotes: its text is `buf[start, end)` (the scanned buffer). */
  bytes(buf: Buffer, start: number, end: number): void;
  /** The record's fields are all given; its text is `[start, end)` of the scanned buffer (line ending excluded). */
  endRecord(start: number, end: number): void;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The records of `bytes[from, to)` handed to `sink` in order (offsets into `bytes`). The scanner is tried first;
 * if it gives up, csv-parse reads the bytes again from the start into the sink `onRestart` gives (a new one: what
 * the first got is to be dropped).
 */
export function scanRecords(
  bytes: Buffer,
  from: number,
  to: number,
  delimiter: string,
  sink: FieldSink,
  onRestart: () => FieldSink = () => sink,
): void {
  if (scanCommon(bytes, from, to, delimiter.charCodeAt(0), sink)) return;
  parseAll(bytes, from, to, delimiter, onRestart());
}

/** The fields of one record's text (no line ending). */
export function fieldsOfRecord(bytes: Buffer, delimiter: string): string[] {
  const collector = (): FieldSink & { fields: string[]; records: number } => ({
    fields: [],
    records: 0,
    text(field) {
      if (this.records === 0) this.fields.push(field);
    },
    bytes(buf, start, end) {
      this.text(buf.toString('utf8', start, end));
    },
    endRecord() {
      this.records++;
    },
  });
  let sink = collector();
  scanRecords(bytes, 0, bytes.length, delimiter, sink, () => {
    sink = collector();
    return sink;
  });
  return sink.records === 0 ? [''] : sink.fields;
}

/**
 * The scanner: false as soon as the bytes need csv-parse (records handed over so far are to be dropped). It keeps
 * no state from one record to the next: scanning from a record's first byte reads the rest as a whole scan does.
 */
export function scanCommon(bytes: Buffer, from: number, to: number, delim: number, sink: FieldSink): boolean {
  let i = from;
  while (i < to) {
    const start = i;
    for (;;) {
      if (bytes[i] === QUOTE) {
        // A quoted field: up to the quote that is not doubled.
        let text = '';
        let piece = i + 1;
        let j = piece;
        for (;;) {
          const q = bytes.indexOf(QUOTE, j);
          if (q < 0 || q >= to) return false; // left open: csv-parse says how
          if (q + 1 < to && bytes[q + 1] === QUOTE) {
            text += bytes.toString('utf8', piece, q + 1);
            j = q + 2;
            piece = j;
            continue;
          }
          sink.text(text + bytes.toString('utf8', piece, q));
          i = q + 1;
          break;
        }
      } else {
        let j = i;
        while (j < to) {
          const c = bytes[j];
          if (c === delim || c === LF) break;
          if (c === QUOTE) return false;
          if (c === CR) {
            if (j + 1 < to && bytes[j + 1] === LF) break;
            return false;
          }
          j++;
        }
        sink.bytes(bytes, i, j);
        i = j;
      }
      if (i >= to) {
        sink.endRecord(start, to);
        return true;
      }
      const c = bytes[i];
      if (c === delim) {
        i++;
        if (i >= to) {
          // A delimiter ends the file: one more, empty, field.
          sink.bytes(bytes, to, to);
          sink.endRecord(start, to);
          return true;
        }
        continue;
      }
      if (c === LF) {
        sink.endRecord(start, i);
        i++;
        break;
      }
      if (c === CR && i + 1 < to && bytes[i + 1] === LF) {
        sink.endRecord(start, i);
        i += 2;
        break;
      }
      return false; // text right after a closing quote
    }
  }
  return true;
}

/** csv-parse over the bytes, as the reader has always read them; `info.bytes` gives each record's place. */
/** How csv-parse reads what the scanner leaves to it (records with their byte lengths, ragged rows kept). */
export const csvParseOptions = (delimiter: string) => ({
  delimiter,
  record_delimiter: ['\r\n', '\n'],
  relax_column_count: true,
  relax_quotes: true,
  skip_empty_lines: false,
  info: true,
});

function parseAll(bytes: Buffer, from: number, to: number, delimiter: string, sink: FieldSink): void {
  let parsed: { record: string[]; info: { bytes: number } }[];
  try {
    parsed = parse(bytes.subarray(from, to), csvParseOptions(delimiter)) as unknown as {
      record: string[];
      info: { bytes: number };
    }[];
  } catch (e) {
    throw new AppError('upstream_error', `Could not read CSV file: ${(e as Error).message}`);
  }
  let offset = from;
  for (const { record, info } of parsed) {
    const next = from + info.bytes;
    let end = next;
    if (end - 2 >= offset && bytes[end - 2] === CR && bytes[end - 1] === LF) end -= 2;
    else if (end - 1 >= offset && bytes[end - 1] === LF) end -= 1;
    for (const field of record) sink.text(field);
    sink.endRecord(offset, end);
    offset = next;
  }
}
