/**
 * The write tools: `append_rows`, `update_row`, `delete_row`, `batch`, `upsert_rows`. Each is one write request of
 * the `/v1` API (row-api.ts): a read key is refused there (403 `forbidden`), formulas are refused for a key that may not
 * write them, `if_match` is the `If-Match` header, and `idempotency_key` the `Idempotency-Key` header, so a call
 * an agent retries with the same key writes once.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RowApi, RowApiRequest } from './row-api.ts';
import { apiFailure, resultSchema, toolSuccess } from './tool-results.ts';
import { sheetIdParam } from './tools-read.ts';

const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const rowValues = z
  .record(z.string(), cell)
  .describe(
    'Cells by column name (the header). Text starting with "=" is a formula, if the key allows them.',
  );
const rowParam = z.number().int().min(1).describe('The row number, as query_rows and get_row give it.');
const ifMatchParam = z
  .string()
  .optional()
  .describe('The etag get_row gave: the write is refused (precondition_failed) if the row changed since.');
export const idempotencyParam = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe('Any unique string; calling again with the same one (after a timeout, say) writes only once.');

const ROWS = '/v1/sheets/:sheetId/rows';

type WriteTool =
  | 'append_rows'
  | 'update_row'
  | 'delete_row'
  | 'batch'
  | 'upsert_rows'
  | 'update_rows_where'
  | 'delete_rows_where';

/** The request of the row API each write tool makes. */
export function writeRequestOf(
  tool: WriteTool,
  sheetId: string,
  row = 1,
): Pick<RowApiRequest, 'method' | 'route' | 'params'> {
  switch (tool) {
    case 'append_rows':
      return { method: 'POST', route: ROWS, params: { sheetId } };
    case 'update_row':
      return { method: 'PATCH', route: `${ROWS}/:row`, params: { sheetId, row: String(row) } };
    case 'delete_row':
      return { method: 'DELETE', route: `${ROWS}/:row`, params: { sheetId, row: String(row) } };
    case 'batch':
      return { method: 'POST', route: `${ROWS}/batchUpdate`, params: { sheetId } };
    case 'upsert_rows':
      return { method: 'POST', route: `${ROWS}/upsert`, params: { sheetId } };
    case 'update_rows_where':
      return { method: 'PATCH', route: ROWS, params: { sheetId } };
    case 'delete_rows_where':
      return { method: 'DELETE', route: ROWS, params: { sheetId } };
  }
}

export const isWriteTool = (name: string): name is WriteTool =>
  [
    'append_rows',
    'update_row',
    'delete_row',
    'batch',
    'upsert_rows',
    'update_rows_where',
    'delete_rows_where',
  ].includes(name);

export async function write(api: RowApi, request: RowApiRequest, ok: number) {
  const answer = await api.call(request);
  if (answer.status !== ok) return apiFailure(answer);
  const body = answer.body as Record<string, unknown>;
  return toolSuccess(answer.headers.etag ? { ...body, etag: answer.headers.etag } : body);
}

/** The write tools, registered; the caller hides them from a read key (session.ts). */
export function registerWriteTools(server: McpServer, api: RowApi): RegisteredTool[] {
  return [
    appendRows(server, api),
    updateRow(server, api),
    deleteRow(server, api),
    batch(server, api),
    upsertRows(server, api),
  ];
}

function upsertRows(server: McpServer, api: RowApi): RegisteredTool {
  return server.registerTool(
    'upsert_rows',
    {
      title: 'Update rows by key, appending new ones',
      description:
        'Writes rows by a key column (an order id, an email) instead of row numbers: each row updates the one ' +
        'row whose key columns hold its values, or is appended if none does; all or none. A key that matches ' +
        'several rows is refused (ambiguous_key) and nothing is written. Set dry_run to see what would happen. ' +
        'Needs a read_write key.',
      inputSchema: {
        sheet_id: sheetIdParam,
        key: z.array(z.string()).min(1).max(3).describe('The key columns, e.g. ["Order ID"].'),
        rows: z.array(rowValues).min(1).max(500).describe('Each row holds a value for every key column.'),
        dry_run: z.boolean().optional().describe('true: answer what would be done, and write nothing.'),
        idempotency_key: idempotencyParam,
      },
      outputSchema: resultSchema({
        updated: z.number(),
        appended: z.number(),
        rows: z.array(z.object({ row: z.number(), action: z.enum(['updated', 'appended']) })),
        dry_run: z.boolean().optional(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ sheet_id, key, rows, dry_run, idempotency_key }) =>
      write(
        api,
        {
          tool: 'upsert_rows',
          ...writeRequestOf('upsert_rows', sheet_id),
          ...(dry_run ? { query: { dry_run: 'true' } } : {}),
          body: { key, rows },
          headers: { 'idempotency-key': idempotency_key },
        },
        200,
      ),
  );
}

function appendRows(server: McpServer, api: RowApi): RegisteredTool {
  return server.registerTool(
    'append_rows',
    {
      title: 'Append rows',
      description: 'Adds up to 500 rows after the last row of a tab, all or none. Needs a read_write key.',
      inputSchema: {
        sheet_id: sheetIdParam,
        rows: z.array(rowValues).min(1).max(500),
        idempotency_key: idempotencyParam,
      },
      outputSchema: resultSchema({ appended: z.number() }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ sheet_id, rows, idempotency_key }) =>
      write(
        api,
        {
          tool: 'append_rows',
          ...writeRequestOf('append_rows', sheet_id),
          body: rows,
          headers: { 'idempotency-key': idempotency_key },
        },
        201,
      ),
  );
}

function updateRow(server: McpServer, api: RowApi): RegisteredTool {
  return server.registerTool(
    'update_row',
    {
      title: 'Update a row',
      description:
        'Sets the named cells of one row; other cells keep their values. Pass if_match (from get_row) so an ' +
        'edit made meanwhile, by anyone or in the sheet itself, is not overwritten. Needs a read_write key.',
      inputSchema: {
        sheet_id: sheetIdParam,
        row: rowParam,
        values: rowValues,
        if_match: ifMatchParam,
        idempotency_key: idempotencyParam,
      },
      outputSchema: resultSchema({ updated: z.number(), row: z.number(), etag: z.string().optional() }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ sheet_id, row, values, if_match, idempotency_key }) =>
      write(
        api,
        {
          tool: 'update_row',
          ...writeRequestOf('update_row', sheet_id, row),
          body: values,
          headers: { 'if-match': if_match, 'idempotency-key': idempotency_key },
        },
        200,
      ),
  );
}

function deleteRow(server: McpServer, api: RowApi): RegisteredTool {
  return server.registerTool(
    'delete_row',
    {
      title: 'Delete a row',
      description:
        'Deletes one row; the rows below move up one, so row numbers read before are off by one after it. ' +
        'Pass if_match (from get_row) to delete only the row you read. Needs a read_write key.',
      inputSchema: {
        sheet_id: sheetIdParam,
        row: rowParam,
        if_match: ifMatchParam,
        idempotency_key: idempotencyParam,
      },
      outputSchema: resultSchema({ deleted: z.number(), row: z.number() }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ sheet_id, row, if_match, idempotency_key }) =>
      write(
        api,
        {
          tool: 'delete_row',
          ...writeRequestOf('delete_row', sheet_id, row),
          headers: { 'if-match': if_match, 'idempotency-key': idempotency_key },
        },
        200,
      ),
  );
}

function batch(server: McpServer, api: RowApi): RegisteredTool {
  return server.registerTool(
    'batch',
    {
      title: 'Several writes at once',
      description:
        'Up to 500 appends, updates and deletes on one tab, applied together or not at all, in order: ' +
        '{"op":"append","values":{...}}, {"op":"update","row":n,"values":{...}}, {"op":"delete","row":n}. ' +
        'Row numbers refer to the tab as it is before the batch. Needs a read_write key.',
      inputSchema: {
        sheet_id: sheetIdParam,
        mutations: z
          .array(
            z.looseObject({
              op: z.enum(['append', 'update', 'delete']),
              row: z.number().int().min(1).optional(),
              values: z.record(z.string(), cell).optional(),
            }),
          )
          .min(1)
          .max(500),
        idempotency_key: idempotencyParam,
      },
      outputSchema: resultSchema({ appended: z.number(), updated: z.number(), deleted: z.number() }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ sheet_id, mutations, idempotency_key }) =>
      write(
        api,
        {
          tool: 'batch',
          ...writeRequestOf('batch', sheet_id),
          body: { mutations },
          headers: { 'idempotency-key': idempotency_key },
        },
        200,
      ),
  );
}
