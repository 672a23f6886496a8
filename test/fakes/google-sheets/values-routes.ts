// spreadsheets.values.*: get, batchGet, update, batchUpdate, append, clear, batchClear.
import { formatRange } from './a1.ts';
import { tableFor, tableRangeText } from './append.ts';
import { changeBook, spreadsheetFile } from './book-access.ts';
import { badRequest } from './errors.ts';
import { type FakeRequest, ok, queryFlag, type Route } from './http-types.ts';
import { parseInputOption } from './input.ts';
import { locate } from './locate.ts';
import { type MajorDimension, parseMajorDimension, readRect, valueRange } from './read-values.ts';
import { parseDateTimeRender, parseValueRender } from './render.ts';
import type { Book, Store } from './store.ts';
import { parseValues, type UpdateCounts, writeValues } from './write-values.ts';

const ID = '([^/:]+)';
const RANGE = '([^/]+?)';

function readOptions(q: { get(name: string): unknown }) {
  return {
    major: parseMajorDimension(q.get('majorDimension')),
    render: parseValueRender(q.get('valueRenderOption')),
    dateTime: parseDateTimeRender(q.get('dateTimeRenderOption')),
  };
}

type WriteRequest = {
  range: string;
  body: Record<string, unknown>;
  option: ReturnType<typeof parseInputOption>;
  includeValues: boolean;
  responseRender: unknown;
  responseDateTime: unknown;
};

function update(book: Book, spreadsheetId: string, w: WriteRequest) {
  if (typeof w.body.range === 'string' && w.body.range !== w.range) {
    const inUrl = locate(book, w.range);
    const inBody = locate(book, w.body.range);
    if (formatRange(inUrl.sheet.title, inUrl.rect) !== formatRange(inBody.sheet.title, inBody.rect))
      throw badRequest(
        `Requested range [${w.body.range}] must match the range in the URL [${w.range}], but they were different.`,
      );
  }
  const target = locate(book, w.range);
  const major = parseMajorDimension(w.body.majorDimension);
  const counts = writeValues(target.sheet, target.bounds, w.range, parseValues(w.body), major, w.option);
  return { counts, response: updateResponse(spreadsheetId, counts), target, major };
}

function updateResponse(spreadsheetId: string, counts: UpdateCounts): Record<string, unknown> {
  const response: Record<string, unknown> = { spreadsheetId, updatedRange: counts.updatedRange };
  if (counts.updatedCells > 0) {
    response.updatedRows = counts.updatedRows;
    response.updatedColumns = counts.updatedColumns;
    response.updatedCells = counts.updatedCells;
  }
  return response;
}

function withUpdatedData(
  store: Store,
  id: string,
  response: Record<string, unknown>,
  w: WriteRequest,
  rangeForData: (book: Book) => { sheetTitle: string; rect: UpdateCounts['rect'] },
  major: MajorDimension,
): Record<string, unknown> {
  if (!w.includeValues) return response;
  const book = spreadsheetFile(store, id).book;
  const { sheetTitle, rect } = rangeForData(book);
  const sheet = book.sheets.find((s) => s.title === sheetTitle);
  if (!sheet) return response;
  const render = parseValueRender(w.responseRender);
  const dateTime = parseDateTimeRender(w.responseDateTime);
  return { ...response, updatedData: valueRange(sheet, rect, major, render, dateTime) };
}

function writeRequest(req: FakeRequest, range: string): WriteRequest {
  return {
    range,
    body: req.body,
    option: parseInputOption(req.query.get('valueInputOption') ?? undefined),
    includeValues: queryFlag(req.query, 'includeValuesInResponse'),
    responseRender: req.query.get('responseValueRenderOption') ?? undefined,
    responseDateTime: req.query.get('responseDateTimeRenderOption') ?? undefined,
  };
}

export function valuesRoutes(store: Store): Route[] {
  return [
    {
      method: 'GET',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}/values:batchGet$`),
      quota: 'read',
      auth: true,
      handle: (req, [id]) => {
        const book = spreadsheetFile(store, id as string).book;
        const options = readOptions(req.query);
        const valueRanges = req.query.getAll('ranges').map((text) => {
          const { sheet, rect } = locate(book, text);
          return valueRange(sheet, rect, options.major, options.render, options.dateTime);
        });
        const body: Record<string, unknown> = { spreadsheetId: id };
        if (valueRanges.length > 0) body.valueRanges = valueRanges;
        return ok(body);
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}/values:batchUpdate$`),
      quota: 'write',
      auth: true,
      handle: (req, [id]) => {
        const spreadsheetId = id as string;
        const option = parseInputOption(req.body.valueInputOption);
        const data = Array.isArray(req.body.data) ? (req.body.data as Record<string, unknown>[]) : [];
        const results = changeBook(store, spreadsheetId, (book) =>
          data.map((item, i) => {
            if (typeof item.range !== 'string') throw badRequest(`Invalid data[${i}]: range is required`);
            try {
              return update(book, spreadsheetId, {
                range: item.range,
                body: item,
                option,
                includeValues: false,
                responseRender: undefined,
                responseDateTime: undefined,
              });
            } catch (error) {
              if (error instanceof Error && 'code' in error)
                error.message = `Invalid data[${i}]: ${error.message}`;
              throw error;
            }
          }),
        );
        const written = results.filter((r) => r.counts.updatedCells > 0);
        const rows = new Set<string>();
        const cols = new Set<string>();
        for (const r of written) {
          for (let row = r.counts.rect.startRow; row <= r.counts.rect.endRow; row++)
            rows.add(`${r.target.sheet.sheetId}:${row}`);
          for (let col = r.counts.rect.startCol; col <= r.counts.rect.endCol; col++)
            cols.add(`${r.target.sheet.sheetId}:${col}`);
        }
        const body: Record<string, unknown> = { spreadsheetId };
        if (written.length > 0) {
          body.totalUpdatedRows = rows.size;
          body.totalUpdatedColumns = cols.size;
          body.totalUpdatedCells = written.reduce((n, r) => n + r.counts.updatedCells, 0);
          body.totalUpdatedSheets = new Set(written.map((r) => r.target.sheet.sheetId)).size;
        }
        if (results.length > 0) body.responses = results.map((r) => r.response);
        return ok(body);
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}/values:batchClear$`),
      quota: 'write',
      auth: true,
      handle: (req, [id]) => {
        const ranges = Array.isArray(req.body.ranges) ? (req.body.ranges as string[]) : [];
        const clearedRanges = changeBook(store, id as string, (book) =>
          ranges.map((text) => clear(book, text)),
        );
        const body: Record<string, unknown> = { spreadsheetId: id };
        if (clearedRanges.length > 0) body.clearedRanges = clearedRanges;
        return ok(body);
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}/values/${RANGE}:append$`),
      quota: 'write',
      auth: true,
      handle: (req, [id, encoded]) => {
        const spreadsheetId = id as string;
        const w = writeRequest(req, decodeURIComponent(encoded as string));
        const insertRows = req.query.get('insertDataOption') === 'INSERT_ROWS';
        const major = parseMajorDimension(w.body.majorDimension);
        const result = changeBook(store, spreadsheetId, (book) => {
          const target = locate(book, w.range);
          const table = tableFor(target.sheet, target.rect);
          const origin = table
            ? { startRow: table.endRow + 1, startCol: table.startCol }
            : { startRow: target.rect.startRow, startCol: target.rect.startCol };
          const lines = parseValues(w.body);
          if (insertRows) {
            const height = major === 'ROWS' ? lines.length : Math.max(0, ...lines.map((l) => l.length));
            target.sheet.grid.shift('ROWS', origin.startRow, height);
            target.sheet.rowCount += height;
          }
          const bounds = {
            startRow: origin.startRow,
            startCol: origin.startCol,
            endRow: origin.startRow,
            endCol: origin.startCol,
          };
          const counts = writeValues(target.sheet, bounds, w.range, lines, major, w.option);
          return {
            counts,
            sheetTitle: target.sheet.title,
            tableRange: table && tableRangeText(target.sheet, table),
          };
        });
        const updates = withUpdatedData(
          store,
          spreadsheetId,
          updateResponse(spreadsheetId, result.counts),
          w,
          () => ({ sheetTitle: result.sheetTitle, rect: result.counts.rect }),
          major,
        );
        const body: Record<string, unknown> = { spreadsheetId };
        if (result.tableRange) body.tableRange = result.tableRange;
        body.updates = updates;
        return ok(body);
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}/values/${RANGE}:clear$`),
      quota: 'write',
      auth: true,
      handle: (_req, [id, encoded]) => {
        const text = decodeURIComponent(encoded as string);
        const clearedRange = changeBook(store, id as string, (book) => clear(book, text));
        return ok({ spreadsheetId: id, clearedRange });
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}/values/${RANGE}$`),
      quota: 'read',
      auth: true,
      handle: (req, [id, encoded]) => {
        const book = spreadsheetFile(store, id as string).book;
        const { sheet, rect } = locate(book, decodeURIComponent(encoded as string));
        const options = readOptions(req.query);
        return ok(valueRange(sheet, rect, options.major, options.render, options.dateTime));
      },
    },
    {
      method: 'PUT',
      pattern: new RegExp(`^/v4/spreadsheets/${ID}/values/${RANGE}$`),
      quota: 'write',
      auth: true,
      handle: (req, [id, encoded]) => {
        const spreadsheetId = id as string;
        const w = writeRequest(req, decodeURIComponent(encoded as string));
        const result = changeBook(store, spreadsheetId, (book) => update(book, spreadsheetId, w));
        return ok(
          withUpdatedData(
            store,
            spreadsheetId,
            result.response,
            w,
            () => ({
              sheetTitle: result.target.sheet.title,
              rect: requestedRect(result.target, result.counts),
            }),
            result.major,
          ),
        );
      },
    },
  ];
}

/** updatedData echoes the requested range, or the written box when only a start cell was given. */
function requestedRect(target: ReturnType<typeof locate>, counts: UpdateCounts) {
  const b = target.bounds;
  const single = b.startRow !== undefined && b.startRow === b.endRow && b.startCol === b.endCol;
  return single ? counts.rect : target.rect;
}

function clear(book: Book, text: string): string {
  const { sheet, rect } = locate(book, text);
  for (const [r, c] of [...sheet.grid.entries()])
    if (r >= rect.startRow && r <= rect.endRow && c >= rect.startCol && c <= rect.endCol)
      sheet.grid.set(r, c, undefined);
  return formatRange(sheet.title, rect);
}

export { readRect };
