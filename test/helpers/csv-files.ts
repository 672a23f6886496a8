/** Random .csv files for property tests of the reader (csv-scan.test.ts, csv-read-split.test.ts). */
import fc from 'fast-check';

/** Fields that exercise every path of the reader: numbers kept and not, booleans, quotes, the formula guard. */
export const CSV_FIELDS = [
  '',
  'a',
  ' x ',
  'Ann',
  '007',
  '0',
  '42',
  '-3',
  '1.50',
  '7.99',
  '-0',
  '-0.25',
  '1e3',
  '2.5E-2',
  '0.0000001',
  '123456789012345678',
  '12345678901234.5',
  'TRUE',
  'True',
  'false',
  'FALSE',
  'truth',
  "'=x",
  "''=x",
  "'",
  '=1+1',
  'é ü',
  '"q"',
  '"a,b"',
  '"a;b\tc"',
  '"multi\nline"',
  '"crlf\r\nin"',
  '"x""y"',
  '""',
  '"  "',
  'a"b',
  '"a"b',
  'c\rd',
  '"open',
];

/** The fields above the byte scanner reads itself (the others need csv-parse: a stray quote, a lone CR). */
export const SCANNED_FIELDS = CSV_FIELDS.filter((f) => !['a"b', '"a"b', 'c\rd', '"open'].includes(f));

/** A file of up to `maxLines` lines of such fields, any delimiter and line endings, with or without a BOM. */
export const csvFiles = (maxLines = 10, fields: readonly string[] = CSV_FIELDS) =>
  fc
    .record({
      lines: fc.array(fc.array(fc.constantFrom(...fields), { maxLength: 6 }), { maxLength: maxLines }),
      delimiter: fc.constantFrom(',', ';', '\t'),
      eols: fc.array(fc.constantFrom('\n', '\r\n'), { minLength: maxLines, maxLength: maxLines }),
      finalNewline: fc.boolean(),
      bom: fc.boolean(),
    })
    .map(({ lines, delimiter, eols, finalNewline, bom }) => {
      let text = lines
        .map((fields, i) => fields.join(delimiter) + (i < lines.length - 1 ? eols[i] : ''))
        .join('');
      if (finalNewline && lines.length > 0) text += eols[0];
      return Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text)]);
    });

export const csvFileArb = csvFiles();
