/**
 * Every MCP tool with the official SDK's client against a real server, over both transports (Streamable HTTP to
 * `/mcp`; stdio to a spawned `sheetport mcp`), on a workbook written by openpyxl: the answers equal the HTTP API's
 * for the same query, and what the write tools write is what openpyxl reads back.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.ts';
import { type AnyJson, callError, callOk, MCP_TRANSPORTS } from '../helpers/mcp-client.ts';
import { LONG_NOTE_ROW, ORDER_ROWS, openOrdersSession, rowsByOpenpyxl } from '../helpers/mcp-workbook.ts';

describe.each(MCP_TRANSPORTS)('over %s', { timeout: 30_000 }, (transport) => {
  let h: Harness;
  let file: string;
  let sheetId: string;
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ h, file, sheetId, client, close } = await openOrdersSession(transport));
  });

  afterAll(() => close());

  describe('tools', () => {
    it('lists every tool with an input schema, an output schema and annotations', async () => {
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      const names = [
        'list_sheets',
        'describe_sheet',
        'query_rows',
        'get_row',
        'append_rows',
        'update_row',
        'delete_row',
        'batch',
        'changes_since',
        'aggregate_rows',
        'upsert_rows',
        'update_rows_where',
        'delete_rows_where',
      ];
      for (const name of names) {
        const tool = byName.get(name);
        expect(tool, name).toBeDefined();
        expect(tool!.inputSchema.type).toBe('object');
        expect(tool!.outputSchema?.type).toBe('object');
        expect(typeof tool!.annotations?.readOnlyHint).toBe('boolean');
        expect(tool!.description!.length).toBeGreaterThan(40);
      }
      expect(byName.get('query_rows')!.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
      });
      expect(byName.get('delete_row')!.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
      });
      expect(byName.get('query_rows')!.description).toMatch(/search/);
      expect(Object.keys(byName.get('query_rows')!.inputSchema.properties!)).toEqual(
        expect.arrayContaining([
          'sheet_id',
          'search',
          'search_exact',
          'where',
          'sort',
          'fields',
          'limit',
          'offset',
          'values',
        ]),
      );
    });

    it('list_sheets gives each tab its /v1 sheet_id; describe_sheet its columns with types and examples', async () => {
      const listed = await callOk(client, 'list_sheets');
      const tabs = listed.spreadsheets[0].sheets.map((s: AnyJson) => s.name);
      expect(tabs).toEqual(['Orders', 'Notes']);
      const described = await callOk(client, 'describe_sheet', { sheet_id: sheetId });
      expect(described.header).toEqual(['Customer', 'City', 'Amount', 'Shipped', 'Notes']);
      expect(described.row_count).toBe(ORDER_ROWS);
      const types = Object.fromEntries(described.columns.map((c: AnyJson) => [c.name, c.type]));
      expect(types).toMatchObject({ Customer: 'text', Amount: 'number', Shipped: 'boolean' });
      expect(described.columns[0].examples.length).toBeGreaterThan(0);
      const http = await (await h.fetch(`/v1/sheets/${sheetId}`)).json();
      expect(described).toEqual(http);
    });

    it('query_rows filters and sorts as the row API does, with the same rows, numbered', async () => {
      const result = await callOk(client, 'query_rows', {
        sheet_id: sheetId,
        search: 'City:lima',
        sort: '-Amount',
        fields: 'Customer,Amount',
        limit: 5,
      });
      const http = await (
        await h.fetch(
          `/v1/sheets/${sheetId}/rows?search=City:lima&sort=-Amount&fields=Customer,Amount&limit=5`,
        )
      ).json();
      expect(result.rows.map((r: AnyJson) => r.values)).toEqual(http.data);
      expect(result.total).toBe(http.meta.total);
      expect(result.total).toBe(ORDER_ROWS / 4);
      // Row numbers are where the rows are in the tab: Customer 116 is row 116.
      for (const r of result.rows)
        expect(r.values.Customer).toBe(`Customer ${String(r.row).padStart(3, '0')}`);
      expect(result.next_offset).toBe(5);
      const api = await (
        await h.fetch(
          `/api/spreadsheets/${await userKeyOf(h)}/Orders?search=City:lima&sort=-Amount&fields=Customer,Amount&limit=5`,
        )
      ).json();
      expect(api).toEqual(http.data);
    });

    it('query_rows takes where, as the row API does, and words its refusal with the position', async () => {
      const where = "Amount > 600 and (City in ('Oslo', 'Quito') or Shipped = true)";
      const result = await callOk(client, 'query_rows', {
        sheet_id: sheetId,
        where,
        fields: 'Customer,Amount',
        limit: 20,
      });
      const http = await (
        await h.fetch(
          `/v1/sheets/${sheetId}/rows?where=${encodeURIComponent(where)}&fields=Customer,Amount&limit=20`,
        )
      ).json();
      expect(result.rows.map((r: AnyJson) => r.values)).toEqual(http.data);
      expect(result.total).toBe(http.meta.total);
      expect(result.total).toBeGreaterThan(0);
      expect(result.total).toBeLessThan(ORDER_ROWS);
      const refused = await callError(client, 'query_rows', { sheet_id: sheetId, where: 'Amount >' });
      expect(refused).toMatchObject({ code: 'invalid_parameter' });
      expect(refused.message).toContain('position 8');
    });

    it('aggregate_rows answers counts and sums per group as the aggregate route does, in one call', async () => {
      const args = {
        sheet_id: sheetId,
        group_by: 'City',
        metrics: 'count,sum(Amount)',
        sort: '-sum(Amount)',
      };
      const result = await callOk(client, 'aggregate_rows', args);
      const http = await (
        await h.fetch(
          `/v1/sheets/${sheetId}/aggregate?group_by=City&metrics=${encodeURIComponent('count,sum(Amount)')}&sort=-sum(Amount)`,
        )
      ).json();
      expect(result.groups).toEqual(http.data);
      expect(result).toMatchObject({ total: 4, matched: ORDER_ROWS, next_offset: null });
      // Computed here: row i (1..120) is in city i % 4 with amount i * 10 + 0.5.
      const sums = new Map<string, number>();
      const cities = ['Lima', 'Oslo', 'Porto', 'Quito'];
      for (let i = 1; i <= ORDER_ROWS; i++)
        sums.set(cities[i % 4]!, (sums.get(cities[i % 4]!) ?? 0) + i * 10 + 0.5);
      const expected = [...sums]
        .sort((a, b) => b[1] - a[1])
        .map(([City, sum]) => ({ City, count: 30, 'sum(Amount)': sum }));
      expect(result.groups).toEqual(expected);
      const refused = await callError(client, 'aggregate_rows', {
        sheet_id: sheetId,
        metrics: 'median(Amount)',
      });
      expect(refused).toMatchObject({ code: 'invalid_parameter' });
    });

    it('pages at 50 rows by default and says how to get the next page', async () => {
      const raw = await client.callTool({ name: 'query_rows', arguments: { sheet_id: sheetId, limit: 500 } });
      const page = raw.structuredContent as AnyJson;
      expect(page.rows).toHaveLength(50);
      expect(page.limit).toBe(50);
      expect(page.next_offset).toBe(50);
      expect(JSON.stringify(raw.content)).toContain('offset 50');
      const last = await client.callTool({
        name: 'query_rows',
        arguments: { sheet_id: sheetId, offset: 100 },
      });
      expect((last.structuredContent as AnyJson).rows).toHaveLength(20);
      expect((last.structuredContent as AnyJson).next_offset).toBeNull();
      expect(JSON.stringify(last.content)).toContain('Rows 101-120 of 120. That is the last of them.');
      const counted = await client.callTool({
        name: 'query_rows',
        arguments: { sheet_id: sheetId, limit: 0 },
      });
      expect((counted.structuredContent as AnyJson).total).toBe(ORDER_ROWS);
      expect(JSON.stringify(counted.content)).toContain(`${ORDER_ROWS} rows match; ask for some with limit`);
      const none = await client.callTool({
        name: 'query_rows',
        arguments: { sheet_id: sheetId, search: 'City:nowhere' },
      });
      expect(JSON.stringify(none.content)).toContain('No rows match.');
    });

    it('cuts long text with a marker that says how to get the whole cell, which get_row gives', async () => {
      const page = await callOk(client, 'query_rows', {
        sheet_id: sheetId,
        search_exact: `Customer:Customer 00${LONG_NOTE_ROW}`,
      });
      const note: string = page.rows[0].values.Notes;
      expect(page.cut_cells).toBe(1);
      expect(note.length).toBeLessThan(700);
      expect(note).toMatch(/cut: 1999 characters in all; get_row with row 3 and fields \["Notes"\]/);
      const whole = await callOk(client, 'get_row', {
        sheet_id: sheetId,
        row: LONG_NOTE_ROW,
        fields: 'Notes',
      });
      expect(whole.values.Notes).toHaveLength(1999);
    });

    it('appends, updates with if_match, refuses a stale if_match, deletes, and openpyxl reads the result', async () => {
      const appended = await callOk(client, 'append_rows', {
        sheet_id: sheetId,
        rows: [{ Customer: 'Agent One', City: 'Lima', Amount: 1, Shipped: false, Notes: 'from mcp' }],
      });
      expect(appended.appended).toBe(1);
      const row = ORDER_ROWS + 1;
      const read = await callOk(client, 'get_row', { sheet_id: sheetId, row });
      expect(read.values.Customer).toBe('Agent One');
      expect(read.etag).toMatch(/^".+"$/);
      const updated = await callOk(client, 'update_row', {
        sheet_id: sheetId,
        row,
        values: { Amount: 2 },
        if_match: read.etag,
      });
      expect(updated).toMatchObject({ updated: 1, row });
      const stale = await callError(client, 'update_row', {
        sheet_id: sheetId,
        row,
        values: { Amount: 3 },
        if_match: read.etag,
      });
      expect(stale.code).toBe('precondition_failed');
      expect(stale.status).toBe(412);
      let rows = await rowsByOpenpyxl(file, 'Orders');
      expect(rows[row]).toEqual(['Agent One', 'Lima', 2, false, 'from mcp']);

      const fresh = await callOk(client, 'get_row', { sheet_id: sheetId, row });
      const deleted = await callOk(client, 'delete_row', { sheet_id: sheetId, row, if_match: fresh.etag });
      expect(deleted).toEqual({ deleted: 1, row });
      rows = await rowsByOpenpyxl(file, 'Orders');
      expect(rows).toHaveLength(ORDER_ROWS + 1);
    });

    it('batch applies all or nothing', async () => {
      const refused = await callError(client, 'batch', {
        sheet_id: sheetId,
        mutations: [
          { op: 'update', row: 1, values: { Notes: 'batched' } },
          { op: 'update', row: 1, values: { NoSuchColumn: 1 } },
        ],
      });
      expect(refused.code).toBe('unknown_field');
      expect((await callOk(client, 'get_row', { sheet_id: sheetId, row: 1 })).values.Notes).toBe('note 1');
      const done = await callOk(client, 'batch', {
        sheet_id: sheetId,
        mutations: [
          { op: 'update', row: 1, values: { Notes: 'batched' } },
          { op: 'append', values: { Customer: 'Batch Two', City: 'Oslo' } },
        ],
      });
      expect(done).toMatchObject({ appended: 1, updated: 1, deleted: 0 });
      const rows = await rowsByOpenpyxl(file, 'Orders');
      expect(rows[1]![4]).toBe('batched');
      expect(rows.at(-1)![0]).toBe('Batch Two');
    });

    it('changes_since lists what changed after an instant, as the change feed does', async () => {
      const since = new Date(Date.now() - 1000).toISOString();
      await callOk(client, 'update_row', { sheet_id: sheetId, row: 2, values: { Notes: 'changed' } });
      const changes = await callOk(client, 'changes_since', { sheet_id: sheetId, updated_since: since });
      const entry = changes.data.find((c: AnyJson) => c.row_index === 2 || c.row === 2);
      expect(entry).toBeDefined();
      expect(JSON.stringify(entry)).toContain('changed');
      expect(typeof changes.next_updated_since).toBe('string');
      const http = await (
        await h.fetch(`/v1/sheets/${sheetId}/changes?updated_since=${encodeURIComponent(since)}&limit=50`)
      ).json();
      expect(changes.data).toEqual(http.data);
    });

    it('upsert_rows updates a row by its key and appends a new one, and refuses an ambiguous key', async () => {
      const before = (await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count;
      const dry = await callOk(client, 'upsert_rows', {
        sheet_id: sheetId,
        key: ['Customer'],
        rows: [{ Customer: 'Customer 007', Notes: 'by key' }, { Customer: 'Upserted new' }],
        dry_run: true,
      });
      expect(dry).toMatchObject({ updated: 1, appended: 1, dry_run: true });
      expect((await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count).toBe(before);
      const done = await callOk(client, 'upsert_rows', {
        sheet_id: sheetId,
        key: ['Customer'],
        rows: [{ Customer: 'Customer 007', Notes: 'by key' }, { Customer: 'Upserted new' }],
      });
      expect(done.rows).toEqual([
        { row: 7, action: 'updated' },
        { row: before + 1, action: 'appended' },
      ]);
      expect((await callOk(client, 'get_row', { sheet_id: sheetId, row: 7 })).values.Notes).toBe('by key');
      const ambiguous = await callError(client, 'upsert_rows', {
        sheet_id: sheetId,
        key: ['City'],
        rows: [{ City: 'Lima' }],
      });
      expect(ambiguous.code).toBe('ambiguous_key');
    });

    it('update_rows_where and delete_rows_where write every row a filter keeps, and dry_run writes nothing', async () => {
      const where = "Notes = 'note 11' or Notes = 'note 12'";
      const dry = await callOk(client, 'delete_rows_where', { sheet_id: sheetId, where, dry_run: true });
      expect(dry).toMatchObject({ deleted: 2, rows: [11, 12], remaining: 0, dry_run: true });
      const updated = await callOk(client, 'update_rows_where', {
        sheet_id: sheetId,
        where,
        values: { City: 'Bern' },
      });
      expect(updated).toMatchObject({ updated: 2, rows: [11, 12], remaining: 0 });
      expect((await callOk(client, 'get_row', { sheet_id: sheetId, row: 12 })).values.City).toBe('Bern');
      const before = (await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count;
      const deleted = await callOk(client, 'delete_rows_where', {
        sheet_id: sheetId,
        where: "City = 'Bern'",
        limit: 1,
      });
      expect(deleted).toMatchObject({ deleted: 1, rows: [11], remaining: 1 });
      expect((await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count).toBe(before - 1);
    });

    it('a retried write with the same idempotency_key writes once', async () => {
      const before = (await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count;
      const args = { sheet_id: sheetId, rows: [{ Customer: 'Once' }], idempotency_key: 'append-once-1' };
      await callOk(client, 'append_rows', args);
      await callOk(client, 'append_rows', args);
      expect((await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count).toBe(before + 1);
    });

    it("a write larger than the API's 5 MiB is refused as on the wire, and writes nothing", async () => {
      const before = (await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count;
      // 450 rows of 12,000 characters: about 5.4 MB of JSON, under the 8 MiB an /mcp message may carry.
      const rows = Array.from({ length: 450 }, (_, i) => ({
        Customer: `Big ${i}`,
        Notes: 'n'.repeat(12_000),
      }));
      const refused = await callError(client, 'append_rows', { sheet_id: sheetId, rows });
      expect(refused).toMatchObject({
        code: 'payload_too_large',
        message: 'Request body is larger than 5 MB.',
      });
      expect((await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count).toBe(before);
    });

    it('errors carry the contract code: unknown sheet, unknown field, bad arguments', async () => {
      const missing = await callError(client, 'query_rows', { sheet_id: 'wb_nope~1' });
      expect(missing.code).toBe('sheet_not_found');
      const field = await callError(client, 'query_rows', { sheet_id: sheetId, sort: 'Nope' });
      expect(field.code).toBe('unknown_field');
      expect(field.message).toMatch(/Nope/);
      const bad = await callError(client, 'get_row', { sheet_id: sheetId, row: 0 });
      expect(bad.code).toBe('invalid_parameter');
    });
  });
});

async function userKeyOf(h: Harness): Promise<string> {
  const listed = await (await h.fetch('/v1/spreadsheets')).json();
  return listed.data[0].user_key;
}
