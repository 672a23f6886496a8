/**
 * The read tools: `list_sheets`, `describe_sheet`, `query_rows`, `get_row`, `changes_since`. Each is one request
 * of the `/v1` API (row-api.ts) with the same parameter names and strings; what is added here is only what an
 * agent's context window needs: a page of at most `maxRows` rows with the row numbers the write tools take, a
 * sentence saying how to get the next page, and long text cut with a marker.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpSettings } from '../mcp-config.ts';
import { cutLongText } from './cut-text.ts';
import type { RowApi } from './row-api.ts';
import { apiFailure, isRecord, resultSchema, toolSuccess } from './tool-results.ts';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const READ_ONLY = READ;

export const sheetIdParam = z
  .string()
  .min(1)
  .describe('The tab\'s sheet_id from list_sheets ("<spreadsheet_id>~<tab id>"); it survives renames.');
const rowParam = z.number().int().min(1).describe('The row number (1 is the first row under the header).');
const valuesParam = z
  .enum(['typed', 'formatted', 'formula'])
  .optional()
  .describe(
    'typed (default): numbers, booleans, ISO dates; formatted: the text the sheet shows; formula: =A1*2.',
  );
const fieldsParam = z
  .string()
  .optional()
  .describe('Columns to return, joined by "," (\\, escapes a comma in a name); default all.');

const anyRecord = z.record(z.string(), z.unknown());
const sheetJson = z.looseObject({ sheet_id: z.string(), name: z.string(), row_count: z.number() });

export function registerReadTools(server: McpServer, api: RowApi, settings: McpSettings): void {
  listSheets(server, api);
  describeSheet(server, api);
  queryRows(server, api, settings);
  getRow(server, api);
  changesSince(server, api, settings);
}

function listSheets(server: McpServer, api: RowApi): void {
  server.registerTool(
    'list_sheets',
    {
      title: 'List spreadsheets and tabs',
      description:
        'The spreadsheets this key may reach and their tabs. Each tab has a sheet_id, which every other tool ' +
        'takes, its header (column names) and row_count. Start here.',
      inputSchema: {},
      outputSchema: resultSchema({
        spreadsheets: z.array(
          z.looseObject({ spreadsheet_id: z.string(), name: z.string(), sheets: z.array(sheetJson) }),
        ),
      }),
      annotations: READ,
    },
    async () => {
      const answer = await api.call({ tool: 'list_sheets', method: 'GET', route: '/v1/spreadsheets' });
      if (answer.status !== 200) return apiFailure(answer);
      return toolSuccess({ spreadsheets: (answer.body as { data: unknown[] }).data });
    },
  );
}

function describeSheet(server: McpServer, api: RowApi): void {
  server.registerTool(
    'describe_sheet',
    {
      title: 'Describe a tab',
      description:
        "A tab's columns in order, each with its inferred type (number, boolean, date, text, mixed, empty) and a " +
        'few example values, and its row count. Read this before query_rows to know what to filter and sort on.',
      inputSchema: { sheet_id: sheetIdParam },
      outputSchema: resultSchema({
        sheet_id: z.string(),
        spreadsheet_id: z.string(),
        name: z.string(),
        header: z.array(z.string()),
        row_count: z.number(),
        columns: z.array(
          z.looseObject({ name: z.string(), type: z.string(), examples: z.array(z.unknown()) }),
        ),
      }),
      annotations: READ,
    },
    async ({ sheet_id }) => {
      const answer = await api.call({
        tool: 'describe_sheet',
        method: 'GET',
        route: '/v1/sheets/:sheetId',
        params: { sheetId: sheet_id },
      });
      if (answer.status !== 200) return apiFailure(answer);
      return toolSuccess(answer.body as Record<string, unknown>);
    },
  );
}

export const whereParam = z
  .string()
  .max(4096)
  .optional()
  .describe(
    "One expression, ANDed with search: Total > 500, Status != 'done', Customer in ('Ada', 'Bob'), " +
      "Total between 100 and 200, Email is null, Notes contains 'urgent' (also starts with, ends with), " +
      'joined by and, or, not and parentheses. Strings in single quotes; a column name with spaces or ' +
      'other characters in double quotes ("Order Date" >= \'2024-03-01\': dates are ISO text). ' +
      "A comparison holds only for a non-empty cell of the same type (500 is a number, '500' text).",
  );

function queryRows(server: McpServer, api: RowApi, settings: McpSettings): void {
  server.registerTool(
    'query_rows',
    {
      title: 'Query rows',
      description:
        `Rows of a tab, filtered, sorted and paged by the server: at most ${settings.maxRows} rows per call, with ` +
        'the total that match. Filter on the server with where (comparisons, in, between, is null, and/or/not) or ' +
        'search, and choose columns with fields, rather than paging through a whole tab: "Total > 500 and ' +
        "Status != 'done'\" answers in one call. Each row comes with its row number, which get_row, update_row and " +
        'delete_row take. ' +
        `Text longer than ${settings.maxCellChars} characters is cut with a marker; get_row returns it whole.`,
      inputSchema: {
        sheet_id: sheetIdParam,
        search: z
          .string()
          .optional()
          .describe(
            'Filters "Column:value" joined by ","; each keeps rows whose Column contains value, ignoring case and ' +
              'accents; all must match. Write \\, for a comma and \\: for a colon inside a name or value. ' +
              'Dates are ISO text: "Order Date:2024-03" finds March 2024.',
          ),
        search_exact: z
          .string()
          .optional()
          .describe(
            'Same syntax as search, but the whole value must be exactly equal (case and accents count).',
          ),
        where: whereParam,
        sort: z
          .string()
          .optional()
          .describe('Columns joined by ","; a leading "-" sorts that one descending: "-Total,Customer".'),
        fields: fieldsParam,
        limit: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(`Rows to return; default and maximum ${settings.maxRows}. 0 returns only the total.`),
        offset: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Rows to skip after filtering and sorting (paging).'),
        values: valuesParam,
      },
      outputSchema: resultSchema({
        rows: z.array(z.object({ row: z.number(), values: anyRecord })),
        total: z.number(),
        offset: z.number(),
        limit: z.number(),
        next_offset: z.number().nullable(),
        cut_cells: z.number(),
      }),
      annotations: READ,
    },
    async (args) => {
      const limit = Math.min(args.limit ?? settings.maxRows, settings.maxRows);
      const answer = await api.call({
        tool: 'query_rows',
        method: 'GET',
        route: '/v1/sheets/:sheetId/rows',
        params: { sheetId: args.sheet_id },
        query: {
          search: args.search,
          search_exact: args.search_exact,
          where: args.where,
          sort: args.sort,
          fields: args.fields,
          values: args.values,
          limit: String(limit),
          offset: args.offset === undefined ? undefined : String(args.offset),
          row_numbers: 'true',
        },
      });
      if (answer.status !== 200) return apiFailure(answer);
      return queryResult(answer.body as ListBody, settings);
    },
  );
}

function getRow(server: McpServer, api: RowApi): void {
  server.registerTool(
    'get_row',
    {
      title: 'Get one row',
      description:
        'One row, whole (no text is cut), with its etag: pass the etag as if_match to update_row or delete_row ' +
        'so the write is refused if the row changed meanwhile.',
      inputSchema: { sheet_id: sheetIdParam, row: rowParam, fields: fieldsParam, values: valuesParam },
      outputSchema: resultSchema({ row: z.number(), etag: z.string(), values: anyRecord }),
      annotations: READ,
    },
    async ({ sheet_id, row, fields, values }) => {
      const answer = await api.call({
        tool: 'get_row',
        method: 'GET',
        route: '/v1/sheets/:sheetId/rows/:row',
        params: { sheetId: sheet_id, row: String(row) },
        query: { fields, values },
      });
      if (answer.status !== 200) return apiFailure(answer);
      return toolSuccess({
        row,
        etag: answer.headers.etag ?? '',
        values: answer.body as Record<string, unknown>,
      });
    },
  );
}

function changesSince(server: McpServer, api: RowApi, settings: McpSettings): void {
  server.registerTool(
    'changes_since',
    {
      title: 'Changes since an instant',
      description:
        'Rows inserted, updated or deleted in a tab after updated_since, oldest first, including edits made in ' +
        "Excel or Google Sheets. Pass the answer's next_updated_since next time to get only what is new.",
      inputSchema: {
        sheet_id: sheetIdParam,
        updated_since: z.string().min(1).describe('An ISO 8601 UTC instant, e.g. 2026-03-01T09:30:00Z.'),
        limit: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(`Changes to return; default and maximum ${settings.maxRows}.`),
        offset: z.number().int().min(0).optional(),
      },
      outputSchema: resultSchema({
        data: z.array(anyRecord),
        total: z.number(),
        next_updated_since: z.string(),
      }),
      annotations: READ,
    },
    async ({ sheet_id, updated_since, limit, offset }) => {
      const answer = await api.call({
        tool: 'changes_since',
        method: 'GET',
        route: '/v1/sheets/:sheetId/changes',
        params: { sheetId: sheet_id },
        query: {
          updated_since,
          limit: String(Math.min(limit ?? settings.maxRows, settings.maxRows)),
          offset: offset === undefined ? undefined : String(offset),
        },
      });
      if (answer.status !== 200) return apiFailure(answer);
      const { data, meta } = answer.body as {
        data: unknown[];
        meta: { total: number; next_updated_since: string };
      };
      const hint =
        meta.total > data.length
          ? `${data.length} of ${meta.total} changes; call again with a larger offset for the rest.`
          : `Call again with updated_since ${meta.next_updated_since} for later changes.`;
      return toolSuccess({ data, total: meta.total, next_updated_since: meta.next_updated_since }, hint);
    },
  );
}

interface ListBody {
  data: Record<string, unknown>[];
  meta: { total: number; limit: number; offset: number; rows: number[] };
}

/** A page as an agent reads it: each row with its number, long text cut, and how to get the next page. */
function queryResult(body: ListBody, settings: McpSettings) {
  let cutCells = 0;
  const rows = body.data.map((values, i) => {
    const row = body.meta.rows[i] ?? 0;
    const cut = cutLongText(isRecord(values) ? values : {}, row, settings.maxCellChars);
    cutCells += cut.cut;
    return { row, values: cut.values };
  });
  const { total, limit, offset } = body.meta;
  const end = offset + rows.length;
  const next = rows.length > 0 && end < total ? end : null;
  return toolSuccess(
    { rows, total, offset, limit, next_offset: next, cut_cells: cutCells },
    pageHint(total, offset, rows.length, next),
  );
}

/** The sentence after a page: where it is, and how to get the next one or fewer. */
function pageHint(total: number, offset: number, returned: number, next: number | null): string {
  if (returned === 0) {
    if (total === 0) return 'No rows match.';
    if (offset >= total) return `No rows from offset ${offset}: ${total} rows match in all.`;
    return `${total} rows match; ask for some with limit (and offset to page).`;
  }
  const where = `Rows ${offset + 1}-${offset + returned} of ${total}.`;
  return next === null
    ? `${where} That is the last of them.`
    : `${where} For the next page call query_rows again with offset ${next}; to read fewer rows, narrow with ` +
        'search or search_exact.';
}
