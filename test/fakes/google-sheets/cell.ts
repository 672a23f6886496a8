// What a cell holds: a typed value, optionally the formula that computed it, and the number
// format Google attached when the value was entered (USER_ENTERED "1,234.50" keeps "#,##0.00").

export type NumberFormatType = 'NUMBER' | 'PERCENT' | 'CURRENCY' | 'DATE' | 'TIME' | 'DATE_TIME' | 'TEXT';
export type NumberFormat = { type: NumberFormatType; pattern: string };

export type CellValue =
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'error'; value: string };

export type Cell = {
  value: CellValue;
  /** Formula text including the leading `=`; `value` then holds its computed result. */
  formula?: string;
  format?: NumberFormat;
};

export const isEmptyCell = (cell: Cell | undefined): boolean =>
  cell === undefined ||
  (cell.formula === undefined && cell.value.kind === 'string' && cell.value.value === '');

export const isDateLike = (format: NumberFormat | undefined): boolean =>
  format !== undefined && (format.type === 'DATE' || format.type === 'TIME' || format.type === 'DATE_TIME');
