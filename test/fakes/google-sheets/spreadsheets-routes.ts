// spreadsheets.get / spreadsheets.create / spreadsheets.batchUpdate (structural, atomic).
import { changeBook, spreadsheetFile } from './book-access.ts';
import type { Cell } from './cell.ts';
import { DEFAULT_FORMAT, DEFAULT_THEME } from './defaults.ts';
import { maskWith } from './fields.ts';
import { ok, queryFlag, type Route } from './http-types.ts';
import { locate } from './locate.ts';
import { formatNumber } from './render.ts';
import { type Book, type Sheet, SPREADSHEET_MIME, type Store } from './store.ts';
import { applyRequests, sheetPropertiesJson } from './structural.ts';

const ID = '([^/:]+)';

function cellData(cell: Cell): Record<string, unknown> {
  const v = cell.value;
  const typed =
    v.kind === 'number'
      ? { numberValue: v.value }
      : v.kind === 'bool'
        ? { boolValue: v.value }
        : v.kind === 'error'
          ? { errorValue: { type: 'ERROR', message: v.value } }
          : { stringValue: v.value };
  const formatted =
    v.kind === 'number'
      ? formatNumber(v.value, cell.format)
      : v.kind === 'bool'
        ? v.value
          ? 'TRUE'
          : 'FALSE'
        : v.value;
  const data: Record<string, unknown> = {
    userEnteredValue: cell.formula !== undefined ? { formulaValue: cell.formula } : typed,
    effectiveValue: typed,
    formattedValue: formatted,
  };
  if (cell.format) data.userEnteredFormat = { numberFormat: cell.format };
  return data;
}

function gridData(
  sheet: Sheet,
  rect: { startRow: number; startCol: number; endRow: number; endCol: number },
) {
  const rows: Record<string, unknown>[] = [];
  let lastRow = -1;
  for (const [r] of sheet.grid.entries())
    if (r >= rect.startRow && r <= rect.endRow) lastRow = Math.max(lastRow, r);
  for (let r = rect.startRow; r <= lastRow; r++) {
    const values: Record<string, unknown>[] = [];
    let lastCol = -1;
    for (let c = rect.startCol; c <= rect.endCol; c++) if (sheet.grid.get(r, c)) lastCol = c;
    for (let c = rect.startCol; c <= lastCol; c++) {
      const cell = sheet.grid.get(r, c);
      values.push(cell ? cellData(cell) : {});
    }
    rows.push(values.length > 0 ? { values } : {});
  }
  const data: Record<string, unknown> = {};
  if (rect.startRow > 0) data.startRow = rect.startRow;
  if (rect.startCol > 0) data.startColumn = rect.startCol;
  if (rows.length > 0) data.rowData = rows;
  return data;
}

export function spreadsheetJson(id: string, book: Book, ranges: string[], includeGridData: boolean) {
  const wanted = new Map<Sheet, ReturnType<typeof locate>['rect'][]>();
  for (const text of ranges) {
    const { sheet, rect } = locate(book, text);
    wanted.set(sheet, [...(wanted.get(sheet) ?? []), rect]);
  }
  const sheets = [...book.sheets]
    .sort((a, b) => a.index - b.index)
    .filter((s) => ranges.length === 0 || wanted.has(s))
    .map((sheet) => {
      const json: Record<string, unknown> = { properties: sheetPropertiesJson(sheet) };
      if (includeGridData) {
        const rects = wanted.get(sheet) ?? [
          { startRow: 0, startCol: 0, endRow: sheet.rowCount - 1, endCol: sheet.columnCount - 1 },
        ];
        json.data = rects.map((rect) => gridData(sheet, rect));
      }
      return json;
    });
  return {
    spreadsheetId: id,
    properties: { ...book.properties, defaultFormat: DEFAULT_FORMAT, spreadsheetTheme: DEFAULT_THEME },
    sheets,
    spreadsheetUrl: `https://docs.google.com/spreadsheets/d/${id}/edit`,
  };
}

export function spreadsheetsRoutes(store: Store): Route[] {
  return [
    {
      method: 'POST',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}:batchUpdate$`),
      quota: 'write',
      auth: true,
      handle: (req, [id]) => {
        const spreadsheetId = id as string;
        const replies = changeBook(store, spreadsheetId, (book) => applyRequests(book, req.body.requests));
        const body: Record<string, unknown> = { spreadsheetId, replies };
        if (req.body.includeSpreadsheetInResponse === true) {
          const book = spreadsheetFile(store, spreadsheetId).book;
          const ranges = Array.isArray(req.body.responseRanges) ? (req.body.responseRanges as string[]) : [];
          body.updatedSpreadsheet = spreadsheetJson(
            spreadsheetId,
            book,
            ranges,
            req.body.responseIncludeGridData === true,
          );
        }
        return ok(body);
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}$`),
      quota: 'read',
      auth: true,
      handle: (req, [id]) => {
        const book = spreadsheetFile(store, id as string).book;
        const json = spreadsheetJson(
          id as string,
          book,
          req.query.getAll('ranges'),
          queryFlag(req.query, 'includeGridData'),
        );
        return ok(maskWith(json, req.query.get('fields')));
      },
    },
    {
      method: 'POST',
      pattern: /^\/v4\/spreadsheets$/,
      quota: 'write',
      auth: true,
      handle: (req) => {
        const props = (req.body.properties ?? {}) as Record<string, unknown>;
        const title = typeof props.title === 'string' ? props.title : 'Untitled spreadsheet';
        const file = store.createFile(
          title,
          SPREADSHEET_MIME,
          typeof props.locale === 'string' ? props.locale : undefined,
          typeof props.timeZone === 'string' ? props.timeZone : undefined,
        );
        const book = file.book as Book;
        if (Array.isArray(req.body.sheets) && req.body.sheets.length > 0) {
          const requests = (req.body.sheets as Record<string, unknown>[]).map((s) => ({
            addSheet: { properties: s.properties ?? {} },
          }));
          const draft = { properties: book.properties, sheets: [] as Sheet[] };
          applyRequests(draft, requests);
          book.sheets = draft.sheets;
        }
        return ok(maskWith(spreadsheetJson(file.id, book, [], false), req.query.get('fields')));
      },
    },
  ];
}
