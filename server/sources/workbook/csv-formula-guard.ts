/**
 * CSV injection guard (OWASP): Excel and LibreOffice run a CSV field that starts with `=`, `+`, `-`, `@`, a tab
 * or a CR as a formula when they open the file, and a CSV file cannot mark a field as text. So text that starts
 * with one of those (and is not a plain number) is stored with a leading `'`, the spreadsheet's own text
 * marker, and read back through the API without it. Text that already starts with `'` followed by one of them
 * gets one more `'`, so the round trip through the API is exact for every string.
 */

/** Optional quotes, then a character that makes a spreadsheet read the field as a formula. */
const TRIGGER = /^'*[=+\-@\t\r]/;
/** Written so no two runs of digits can share one (a 32,767-character cell of digits took seconds otherwise). */
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** What `guardCsvText` produces: one extra quote in front of a (quoted) trigger. */
const GUARDED = /^''*[=+\-@\t\r]/;

/** Text as it goes into a field of the file. */
export function guardCsvText(text: string): string {
  return TRIGGER.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** A field of the file -> the text it stands for. */
export function unguardCsvText(field: string): string {
  return GUARDED.test(field) ? field.slice(1) : field;
}
