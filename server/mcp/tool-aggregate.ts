/**
 * `aggregate_rows`: counts, sums, averages and extremes per group, computed by the server in one call of
 * `GET /v1/sheets/{sheetId}/aggregate` (docs/api.md "Aggregates"), so an agent answers "which customer spent
 * most" without paging through a tab.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpSettings } from '../mcp-config.ts';
import type { RowApi } from './row-api.ts';
import { apiFailure, resultSchema, toolSuccess } from './tool-results.ts';
import { READ_ONLY, sheetIdParam, whereParam } from './tools-read.ts';

interface AggregateBody {
  data: Record<string, unknown>[];
  meta: { total: number; limit: number; offset: number; matched: number };
}

export function aggregateRows(server: McpServer, api: RowApi, settings: McpSettings): void {
  server.registerTool(
    'aggregate_rows',
    {
      title: 'Aggregate rows by group',
      description:
        'Counts, sums, averages, minimums and maximums per group of rows, computed by the server: ' +
        'group_by "Customer" with metrics "count,sum(Total)" and sort "-sum(Total)" answers "which customer ' +
        'spent most" in one call, however long the tab. Filter the rows first with where or search. Use this ' +
        'instead of reading rows with query_rows to count or add them up.',
      inputSchema: {
        sheet_id: sheetIdParam,
        group_by: z
          .string()
          .optional()
          .describe('Up to 4 columns joined by ","; none: one group of every matching row.'),
        metrics: z
          .string()
          .optional()
          .describe(
            'Joined by ",": count (rows), count(col) (non-empty cells), count_distinct(col), sum(col), avg(col) ' +
              '(number cells only), min(col), max(col). Default count. A column name with spaces in double ' +
              'quotes: sum("Unit Price"). Each answers under its own text: "sum(Total)".',
          ),
        where: whereParam,
        search: z.string().optional().describe('As query_rows\'s search: "Column:text" joined by ",".'),
        sort: z
          .string()
          .optional()
          .describe('Output columns joined by ","; a leading "-" sorts descending: "-sum(Total)".'),
        limit: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(`Groups to return; default and maximum ${settings.maxRows}.`),
        offset: z.number().int().min(0).optional(),
      },
      outputSchema: resultSchema({
        groups: z.array(z.record(z.string(), z.unknown())),
        total: z.number(),
        matched: z.number(),
        offset: z.number(),
        next_offset: z.number().nullable(),
      }),
      annotations: READ_ONLY,
    },
    async (args) => {
      const answer = await api.call({
        tool: 'aggregate_rows',
        method: 'GET',
        route: '/v1/sheets/:sheetId/aggregate',
        params: { sheetId: args.sheet_id },
        query: {
          group_by: args.group_by,
          metrics: args.metrics,
          where: args.where,
          search: args.search,
          sort: args.sort,
          limit: String(Math.min(args.limit ?? settings.maxRows, settings.maxRows)),
          offset: args.offset === undefined ? undefined : String(args.offset),
        },
      });
      if (answer.status !== 200) return apiFailure(answer);
      const { data, meta } = answer.body as AggregateBody;
      const end = meta.offset + data.length;
      const next = data.length > 0 && end < meta.total ? end : null;
      const hint =
        `${meta.total} groups of ${meta.matched} rows` +
        (next === null ? '.' : `; for the next groups call again with offset ${next}.`);
      return toolSuccess(
        { groups: data, total: meta.total, matched: meta.matched, offset: meta.offset, next_offset: next },
        hint,
      );
    },
  );
}
