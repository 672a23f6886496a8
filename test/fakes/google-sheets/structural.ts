// spreadsheets.batchUpdate requests. Each applies to a draft copy; any failure rejects the whole
// batch (the caller discards the draft). Replies: {} for kinds without one, as Google answers.

import type { NumberFormat } from './cell.ts';
import { storedColorStyle } from './color.ts';
import { badRequest } from './errors.ts';
import { type InputOption, inputToCell, SKIP } from './input.ts';
import { type Book, newSheet, newSheetId, type Sheet } from './store.ts';

type Request = Record<string, unknown>;
type Reply = Record<string, unknown>;
type Handler = (book: Book, request: Request) => Reply;

const fail = (message: string): never => {
  throw badRequest(message);
};

function sheetById(book: Book, sheetId: unknown): Sheet {
  const id = typeof sheetId === 'number' ? sheetId : Number(sheetId ?? 0);
  return book.sheets.find((s) => s.sheetId === id) ?? fail(`No grid with id: ${id}`);
}

function ordered(book: Book): Sheet[] {
  return [...book.sheets].sort((a, b) => a.index - b.index);
}

function reindex(sheets: Sheet[]): void {
  sheets.forEach((s, i) => {
    s.index = i;
  });
}

/** "gridProperties/rowCount,title" → ["gridProperties.rowCount", "title"]; "*" = everything. */
function fieldList(fields: unknown): string[] {
  if (typeof fields !== 'string' || fields.trim() === '')
    fail('At least one field must be updated, but none was specified.');
  return (fields as string).split(',').map((f) => f.trim().replace(/\//g, '.'));
}

/** GridProperties' booleans: false unless a request sets them, and then left out of Google's JSON. */
const GRID_FLAGS = ['hideGridlines', 'rowGroupControlAfter', 'columnGroupControlAfter'] as const;

/** Google's JSON leaves out a field at its default: frozen counts of 0, flags that are false. */
export function sheetPropertiesJson(sheet: Sheet): Record<string, unknown> {
  const gridProperties: Record<string, unknown> = {
    rowCount: sheet.rowCount,
    columnCount: sheet.columnCount,
  };
  if (sheet.frozenRowCount) gridProperties.frozenRowCount = sheet.frozenRowCount;
  if (sheet.frozenColumnCount) gridProperties.frozenColumnCount = sheet.frozenColumnCount;
  for (const flag of GRID_FLAGS) if (sheet[flag]) gridProperties[flag] = true;
  const props: Record<string, unknown> = {
    sheetId: sheet.sheetId,
    title: sheet.title,
    index: sheet.index,
    sheetType: 'GRID',
    gridProperties,
  };
  if (sheet.hidden) props.hidden = true;
  if (sheet.tabColorStyle) {
    const rgb = sheet.tabColorStyle.rgbColor;
    if (rgb) props.tabColor = rgb;
    props.tabColorStyle = sheet.tabColorStyle;
  }
  if (sheet.rightToLeft) props.rightToLeft = true;
  return props;
}

function checkTitle(book: Book, title: unknown, except?: Sheet): string {
  if (typeof title !== 'string' || title === '') return fail('Sheet title cannot be empty.');
  const taken = book.sheets.find((s) => s !== except && s.title.toLowerCase() === title.toLowerCase());
  if (taken) fail(`A sheet with the name "${title}" already exists. Please enter another name.`);
  return title as string;
}

function applySheetProperties(book: Book, sheet: Sheet, props: Request, fields: string[]): void {
  const all = fields.includes('*');
  const has = (path: string) =>
    all || fields.some((f) => f === path || f.startsWith(`${path}.`) || path.startsWith(`${f}.`));
  const grid = (props.gridProperties ?? {}) as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  if (has('title')) sheet.title = checkTitle(book, props.title, sheet);
  if (has('hidden')) sheet.hidden = props.hidden === true;
  if (has('rightToLeft')) sheet.rightToLeft = props.rightToLeft === true;
  if (has('tabColorStyle') || has('tabColor')) {
    const style = has('tabColorStyle')
      ? storedColorStyle(props.tabColorStyle)
      : storedColorStyle(props.tabColor ? { rgbColor: props.tabColor } : undefined);
    if (style && Object.keys(style.rgbColor ?? style).length > 0) sheet.tabColorStyle = style;
    else delete sheet.tabColorStyle;
  }
  if (has('gridProperties.rowCount')) {
    const rows = num(grid.rowCount);
    if (rows < 1) fail('Invalid requests: rowCount must be positive');
    sheet.rowCount = rows;
  }
  if (has('gridProperties.columnCount')) {
    const cols = num(grid.columnCount);
    if (cols < 1) fail('Invalid requests: columnCount must be positive');
    sheet.columnCount = cols;
  }
  if (has('gridProperties.frozenRowCount')) sheet.frozenRowCount = num(grid.frozenRowCount);
  if (has('gridProperties.frozenColumnCount')) sheet.frozenColumnCount = num(grid.frozenColumnCount);
  for (const flag of GRID_FLAGS) {
    if (!has(`gridProperties.${flag}`)) continue;
    if (grid[flag] === true) sheet[flag] = true;
    else delete sheet[flag];
  }
  sheet.grid.crop(sheet.rowCount, sheet.columnCount);
  if (has('index') && typeof props.index === 'number') moveSheet(book, sheet, props.index);
  if (book.sheets.every((s) => s.hidden)) fail("You can't hide all the sheets in a document.");
}

/** Google counts the target index "before the move": moving A (0) to index 2 puts it after B. */
function moveSheet(book: Book, sheet: Sheet, index: number): void {
  const list = ordered(book).filter((s) => s !== sheet);
  const target = index > sheet.index ? index - 1 : index;
  list.splice(Math.max(0, Math.min(target, list.length)), 0, sheet);
  reindex(list);
}

function dimensionRange(book: Book, range: unknown) {
  const r = (range ?? {}) as Record<string, unknown>;
  const sheet = sheetById(book, r.sheetId);
  const dimension =
    r.dimension === 'COLUMNS' ? 'COLUMNS' : r.dimension === 'ROWS' ? 'ROWS' : fail('Invalid dimension');
  const start = typeof r.startIndex === 'number' ? r.startIndex : 0;
  const size = dimension === 'ROWS' ? sheet.rowCount : sheet.columnCount;
  const end = typeof r.endIndex === 'number' ? r.endIndex : size;
  if (start < 0 || end < 0) fail('DimensionRange indexes must be >= 0');
  if (end <= start) fail('Invalid dimension range: startIndex must be less than endIndex');
  return { sheet, dimension: dimension as 'ROWS' | 'COLUMNS', start, end, size };
}

const handlers: Record<string, Handler> = {
  addSheet(book, request) {
    const props = (request.properties ?? {}) as Record<string, unknown>;
    const grid = (props.gridProperties ?? {}) as Record<string, unknown>;
    const title =
      props.title === undefined ? `Sheet${book.sheets.length + 1}` : checkTitle(book, props.title);
    if (typeof props.sheetId === 'number' && book.sheets.some((s) => s.sheetId === props.sheetId))
      fail(`Invalid requests: sheetId ${props.sheetId} is already in use`);
    const sheet = newSheet({
      sheetId: typeof props.sheetId === 'number' ? props.sheetId : newSheetId(book),
      title,
      index: book.sheets.length,
      ...(typeof grid.rowCount === 'number' ? { rowCount: grid.rowCount } : {}),
      ...(typeof grid.columnCount === 'number' ? { columnCount: grid.columnCount } : {}),
    });
    book.sheets.push(sheet);
    const { index: _ignored, sheetId: _id, title: _t, gridProperties: _g, ...rest } = props;
    // Every property the request gives is set, each gridProperties field too (frozen counts, flags).
    const settable = [
      ...Object.keys(rest).filter((k) => k !== 'sheetType'),
      ...Object.keys(grid).map((k) => `gridProperties.${k}`),
    ];
    if (settable.length > 0) applySheetProperties(book, sheet, props, settable);
    if (typeof props.index === 'number') moveSheet(book, sheet, props.index);
    return { addSheet: { properties: sheetPropertiesJson(sheet) } };
  },
  deleteSheet(book, request) {
    const sheet = sheetById(book, request.sheetId);
    if (book.sheets.length === 1) fail("You can't remove all the sheets in a document.");
    book.sheets = book.sheets.filter((s) => s !== sheet);
    reindex(ordered(book));
    if (book.sheets.every((s) => s.hidden)) fail("You can't remove all the visible sheets in a document.");
    return {};
  },
  updateSheetProperties(book, request) {
    const props = (request.properties ?? {}) as Record<string, unknown>;
    applySheetProperties(book, sheetById(book, props.sheetId), props, fieldList(request.fields));
    return {};
  },
  updateSpreadsheetProperties(book, request) {
    const props = (request.properties ?? {}) as Record<string, unknown>;
    const fields = fieldList(request.fields);
    const all = fields.includes('*');
    for (const key of ['title', 'locale', 'timeZone', 'autoRecalc'] as const) {
      if (!all && !fields.includes(key)) continue;
      const value = props[key];
      if (typeof value !== 'string' || value === '') fail(`Invalid requests: ${key} cannot be empty`);
      book.properties[key] = value as string;
    }
    return {};
  },
  insertDimension(book, request) {
    const { sheet, dimension, start, end, size } = dimensionRange(book, request.range);
    if (request.inheritFromBefore === true && start === 0)
      fail('Cannot inherit properties from before if inserting at the beginning of the sheet.');
    if (start > size)
      fail(
        `Cannot insert ${dimension.toLowerCase()} beyond the end of the sheet (index ${start} > ${size}).`,
      );
    sheet.grid.shift(dimension, start, end - start);
    if (dimension === 'ROWS') sheet.rowCount += end - start;
    else sheet.columnCount += end - start;
    return {};
  },
  deleteDimension(book, request) {
    const { sheet, dimension, start, end, size } = dimensionRange(book, request.range);
    const noun = dimension === 'ROWS' ? 'row' : 'column';
    if (end > size)
      fail(
        `Cannot delete a ${noun} that doesn't exist. Tried to delete ${noun} index ${end - 1} but there are only ${size} ${noun}s.`,
      );
    if (start === 0 && end >= size) fail(`You can't delete all the ${noun}s on the sheet.`);
    sheet.grid.shift(dimension, start, -(end - start));
    if (dimension === 'ROWS') sheet.rowCount -= end - start;
    else sheet.columnCount -= end - start;
    return {};
  },
  appendDimension(book, request) {
    const sheet = sheetById(book, request.sheetId);
    const length = typeof request.length === 'number' ? request.length : 0;
    if (length < 1) fail('length must be positive');
    if (request.dimension === 'ROWS') sheet.rowCount += length;
    else if (request.dimension === 'COLUMNS') sheet.columnCount += length;
    else fail('Invalid dimension');
    return {};
  },
  updateCells(book, request) {
    // userEnteredValue ({stringValue|numberValue|boolValue|formulaValue}) and userEnteredFormat.numberFormat are
    // modelled, each written only when `fields` names it, as Google does (a value-only write keeps the format).
    const fields = String(request.fields ?? 'userEnteredValue')
      .split(',')
      .map((f) => f.trim());
    const setsFormat = fields.some((f) => f === '*' || f.startsWith('userEnteredFormat'));
    const start = (request.start ?? (request.range as Record<string, unknown> | undefined)) as
      | Record<string, unknown>
      | undefined;
    const sheet = sheetById(book, start?.sheetId);
    const row0 = Number(start?.rowIndex ?? start?.startRowIndex ?? 0);
    const col0 = Number(start?.columnIndex ?? start?.startColumnIndex ?? 0);
    const rows = Array.isArray(request.rows) ? (request.rows as Record<string, unknown>[]) : [];
    rows.forEach((row, r) => {
      const values = Array.isArray(row.values) ? (row.values as Record<string, unknown>[]) : [];
      values.forEach((cellData, c) => {
        if (row0 + r >= sheet.rowCount || col0 + c >= sheet.columnCount)
          fail(
            `Range (${sheet.title}!R${row0 + r + 1}C${col0 + c + 1}) exceeds grid limits. Max rows: ${sheet.rowCount}, max columns: ${sheet.columnCount}`,
          );
        const entered = (cellData.userEnteredValue ?? undefined) as Record<string, unknown> | undefined;
        const [input, option]: [unknown, InputOption] = !entered
          ? ['', 'RAW']
          : 'formulaValue' in entered
            ? [entered.formulaValue, 'USER_ENTERED']
            : [
                'stringValue' in entered
                  ? entered.stringValue
                  : 'numberValue' in entered
                    ? entered.numberValue
                    : entered.boolValue,
                'RAW',
              ];
        const cell = inputToCell(input, option);
        if (cell === SKIP) return;
        if (cell === undefined) {
          sheet.grid.set(row0 + r, col0 + c, undefined);
          return;
        }
        const numberFormat = (cellData.userEnteredFormat as { numberFormat?: NumberFormat } | undefined)
          ?.numberFormat;
        const format = setsFormat ? numberFormat : sheet.grid.get(row0 + r, col0 + c)?.format;
        const { format: _parsed, ...plain } = cell;
        sheet.grid.set(row0 + r, col0 + c, format ? { ...plain, format } : plain);
      });
    });
    return {};
  },
};

export function applyRequests(book: Book, requests: unknown): Reply[] {
  if (!Array.isArray(requests) || requests.length === 0) fail('Must specify at least one request.');
  return (requests as Request[]).map((request, i) => {
    const kinds = Object.keys(request ?? {});
    const kind = kinds[0] ?? '';
    const handler = handlers[kind];
    if (kinds.length !== 1 || !handler) fail(`Invalid requests[${i}]: unsupported or empty request ${kind}`);
    try {
      return (handler as Handler)(book, (request[kind] ?? {}) as Request);
    } catch (error) {
      if (error instanceof Error && 'code' in error && !error.message.startsWith('Invalid requests['))
        error.message = `Invalid requests[${i}].${kind}: ${error.message}`;
      throw error;
    }
  });
}
