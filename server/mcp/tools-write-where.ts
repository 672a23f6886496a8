/**
 * The write tools by filter: `update_rows_where` and `delete_rows_where`, one call each of `PATCH` / `DELETE
 * /v1/sheets/{sheetId}/rows?where=` (docs/api.md "Writes by filter"): every row a `where` keeps, at most 500 a
 * call unless `limit` takes the first ones, all or none.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RowApi } from './row-api.ts';
import { resultSchema } from './tool-results.ts';
import { sheetIdParam, whereParam } from './tools-read.ts';
import { idempotencyParam, rowValues, write, writeRequestOf } from './tools-write.ts';

const DESTRUCTIVE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
const limitParam = z
  .number()
  .int()
  .min(1)
  .max(500)
  .optional()
  .describe(
    'Write only the first N matching rows in sheet order; without it more than 500 matches is refused.',
  );
const dryRunParam = z
  .boolean()
  .optional()
  .describe('true: answer which rows would be written, and write nothing.');
const written = (counted: 'updated' | 'deleted') =>
  resultSchema({
    [counted]: z.number(),
    rows: z.array(z.number()),
    remaining: z.number(),
    dry_run: z.boolean().optional(),
  });

/** Required here: it says which rows to write. */
const whereRequired = z
  .string()
  .min(1)
  .max(4096)
  .describe(`Which rows to write (required). ${whereParam.description ?? ''}`);

const queryOf = (where: string, limit?: number, dryRun?: boolean) => ({
  where,
  limit: limit === undefined ? undefined : String(limit),
  dry_run: dryRun ? 'true' : undefined,
});

export function registerFilterWriteTools(server: McpServer, api: RowApi): RegisteredTool[] {
  const update = server.registerTool(
    'update_rows_where',
    {
      title: 'Update every row a filter keeps',
      description:
        'Sets the given cells in every row where keeps ("Status = \'open\' and Total > 500"), all or none, ' +
        'without reading row numbers first. At most 500 rows a call (limit takes the first ones; remaining says ' +
        'how many still match). Try dry_run first to see which rows. Needs a read_write key.',
      inputSchema: {
        sheet_id: sheetIdParam,
        where: whereRequired,
        values: rowValues,
        limit: limitParam,
        dry_run: dryRunParam,
        idempotency_key: idempotencyParam,
      },
      outputSchema: written('updated'),
      annotations: DESTRUCTIVE,
    },
    ({ sheet_id, where, values, limit, dry_run, idempotency_key }) =>
      write(
        api,
        {
          tool: 'update_rows_where',
          ...writeRequestOf('update_rows_where', sheet_id),
          query: queryOf(where, limit, dry_run),
          body: values,
          headers: { 'idempotency-key': idempotency_key },
        },
        200,
      ),
  );
  const remove = server.registerTool(
    'delete_rows_where',
    {
      title: 'Delete every row a filter keeps',
      description:
        'Deletes every row where keeps, all or none; the rows below move up. At most 500 rows a call (limit ' +
        'takes the first ones; remaining says how many still match). Try dry_run first. Needs a read_write key.',
      inputSchema: {
        sheet_id: sheetIdParam,
        where: whereRequired,
        limit: limitParam,
        dry_run: dryRunParam,
        idempotency_key: idempotencyParam,
      },
      outputSchema: written('deleted'),
      annotations: DESTRUCTIVE,
    },
    ({ sheet_id, where, limit, dry_run, idempotency_key }) =>
      write(
        api,
        {
          tool: 'delete_rows_where',
          ...writeRequestOf('delete_rows_where', sheet_id),
          query: queryOf(where, limit, dry_run),
          headers: { 'idempotency-key': idempotency_key },
        },
        200,
      ),
  );
  return [update, remove];
}
