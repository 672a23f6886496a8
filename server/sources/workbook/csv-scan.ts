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

/** Called once per record, in order: its fields, and its text's bytes `[start, end)` in the scanned buffer. */
export type RecordSink = (fields: string[], start: number, end: number) => void;

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The records of `bytes[from, to)` handed to `sink` in order (offsets into `bytes`). The scanner is tried first;
 * `onRestart` is called before csv-parse reads the bytes again from the start, so a sink can drop what it got.
 */
export function scanRecords(
  bytes: Buffer,
  from: number,
  to: number,
  delimiter: string,
  sink: RecordSink,
  onRestart: () => void = () => {},
): void {
  if (scanCommon(bytes, from, to, delimiter.charCodeAt(0), sink)) return;
  onRestart();
  parseAll(bytes, from, to, delimiter, sink);
}

/** The fields of one record's text (no line ending). */
export function fieldsOfRecord(bytes: Buffer, delimiter: string): string[] {
  let fields: string[] = [''];
  let seen = false;
  scanRecords(bytes, 0, bytes.length, delimiter, (f) => {
    if (!seen) fields = f;
    seen = true;
  });
  return fields;
}

/** The scanner: false as soon as the bytes need csv-parse (records handed over so far are to be dropped). */
function scanCommon(bytes: Buffer, from: number, to: number, delim: number, sink: RecordSink): boolean {
  let i = from;
  while (i < to) {
    const start = i;
    const fields: string[] = [];
    for (;;) {
      let field: string;
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
          field = text + bytes.toString('utf8', piece, q);
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
        field = bytes.toString('utf8', i, j);
        i = j;
      }
      fields.push(field);
      if (i >= to) {
        sink(fields, start, to);
        return true;
      }
      const c = bytes[i];
      if (c === delim) {
        i++;
        if (i >= to) {
          // A delimiter ends the file: one more, empty, field.
          fields.push('');
          sink(fields, start, to);
          return true;
        }
        continue;
      }
      if (c === LF) {
        sink(fields, start, i);
        i++;
        break;
      }
      if (c === CR && i + 1 < to && bytes[i + 1] === LF) {
        sink(fields, start, i);
        i += 2;
        break;
      }
      return false; // text right after a closing quote
    }
  }
  return true;
}

/** csv-parse over the bytes, as the reader has always read them; `info.bytes` gives each record's place. */
function parseAll(bytes: Buffer, from: number, to: number, delimiter: string, sink: RecordSink): void {
  let parsed: { record: string[]; info: { bytes: number } }[];
  try {
    parsed = parse(bytes.subarray(from, to), {
      delimiter,
      record_delimiter: ['\r\n', '\n'],
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
      info: true,
    }) as unknown as { record: string[]; info: { bytes: number } }[];
  } catch (e) {
    throw new AppError('upstream_error', `Could not read CSV file: ${(e as Error).message}`);
  }
  let offset = from;
  for (const { record, info } of parsed) {
    const next = from + info.bytes;
    let end = next;
    if (end - 2 >= offset && bytes[end - 2] === CR && bytes[end - 1] === LF) end -= 2;
    else if (end - 1 >= offset && bytes[end - 1] === LF) end -= 1;
    sink(record, offset, end);
    offset = next;
  }
}
