/**
 * The file extensions a local workbook may have: the one list. The workbook kind (what it claims, its errors
 * and help text), the engine registry (sources/workbook/engines.ts maps each to its engine), the desktop app's file picker and the
 * dashboard's path field all read it. It imports nothing, so the dashboard's bundle can take it too.
 *
 * `.xlsm` (a macro-enabled workbook) is the same OOXML package as `.xlsx` with a VBA project inside; the engine
 * finds the workbook part through the package's relationships, whatever its content type says, and copies the
 * VBA project byte for byte. Excel's templates (`.xltx`, `.xltm`), binary workbooks (`.xlsb`) and old `.xls`
 * files are not read: they are refused by extension, with what to do instead.
 */

export const WORKBOOK_EXTENSIONS = ['.xlsx', '.xlsm', '.csv'] as const;

export type WorkbookExtension = (typeof WORKBOOK_EXTENSIONS)[number];

/** `.xlsx, .xlsm or .csv`, for messages and help text. */
export const WORKBOOK_EXTENSIONS_TEXT = `${WORKBOOK_EXTENSIONS.slice(0, -1).join(', ')} or ${WORKBOOK_EXTENSIONS.at(-1)}`;

/** The extension (with its dot, any case) as one of the list, or undefined. */
export function workbookExtension(ext: string): WorkbookExtension | undefined {
  const lower = ext.toLowerCase();
  return WORKBOOK_EXTENSIONS.find((known) => known === lower);
}

/** Spreadsheet files that are not read, with what to do instead (added to the "unsupported file type" error). */
const REFUSED: Record<string, string> = {
  '.xlsb': 'an Excel binary workbook: save it from Excel as .xlsx, or .xlsm to keep its macros',
  '.xltx': 'an Excel template: save a workbook made from it as .xlsx',
  '.xltm': 'an Excel macro-enabled template: save a workbook made from it as .xlsm',
  '.xls': 'an old Excel 97-2003 workbook: save it from Excel as .xlsx',
};

/** What to tell about a file whose extension is not in the list (`.xlsb`: it is binary, save it as...). */
export function refusedExtensionHint(ext: string): string | undefined {
  return REFUSED[ext.toLowerCase()];
}

/** `<file.xlsx|file.xlsm|file.csv>`: the argument of `sheetport connect` in help and hints. */
export const WORKBOOK_FILE_ARG = `<${WORKBOOK_EXTENSIONS.map((ext) => `file${ext}`).join('|')}>`;
