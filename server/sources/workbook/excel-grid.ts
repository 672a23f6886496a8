/**
 * Excel's sheet, the grid every workbook file is held to: an `.xlsx` cannot hold more, and a `.csv` is opened by
 * Excel, which reads no more of it. One place for the numbers the readers, the writers and the limits use.
 */

/** Rows in a sheet (1..1,048,576). */
export const EXCEL_MAX_ROWS = 1_048_576;

/** Columns in a sheet (A..XFD). */
export const EXCEL_MAX_COLUMNS = 16_384;

/** Characters in a cell. */
export const EXCEL_MAX_CELL_CHARS = 32_767;
