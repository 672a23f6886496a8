/**
 * The MCP tools on a Google spreadsheet (googleapis against the Sheets fake over HTTP): the same answers as the
 * `/v1` API, a write that lands in the Google sheet, and a subscribed client told of an edit made in Google
 * Sheets once SheetPort's Drive check sees it (every 200 ms here; 30 s by default).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectedBook, Harness } from '../helpers/harness.ts';
import { startHarness } from '../helpers/harness.ts';
import { callOk, mcpOverHttp } from '../helpers/mcp-client.ts';
import { writeOrdersWorkbook } from '../helpers/mcp-workbook.ts';

let h: Harness;
let book: ConnectedBook;
let client: Client;
let sheetId: string;
const updates: { uri: string; at: number }[] = [];

beforeAll(async () => {
  h = await startHarness({ kind: 'google', seams: { watchPollMs: 200 } });
  book = await h.connectBook(await writeOrdersWorkbook(h.dir));
  h.context.startBackground();
  client = await mcpOverHttp(h.url, h.key);
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push({ uri: n.params.uri, at: Date.now() });
  });
  const listed = await callOk(client, 'list_sheets');
  sheetId = listed.spreadsheets[0].sheets.find((s: { name: string }) => s.name === 'Orders').sheet_id;
});

afterAll(async () => {
  await client.close();
  await h.close();
});

describe('MCP on a Google spreadsheet', () => {
  it('answers a query as /v1 does, and writes into the Google sheet', async () => {
    const query = await callOk(client, 'query_rows', {
      sheet_id: sheetId,
      search: 'City:oslo',
      sort: '-Amount',
      limit: 3,
    });
    const http = await (
      await h.fetch(`/v1/sheets/${sheetId}/rows?search=City:oslo&sort=-Amount&limit=3`)
    ).json();
    expect(query.rows.map((r: { values: unknown }) => r.values)).toEqual(http.data);
    expect(query.total).toBe(http.meta.total);
    await callOk(client, 'update_row', { sheet_id: sheetId, row: 1, values: { Notes: 'set by an agent' } });
    expect(await book.cell('Orders', 'E2')).toBe('set by an agent');
  });

  it('tells a subscribed client of an edit made in Google Sheets', async () => {
    const uri = `sheetport://sheets/${encodeURIComponent(sheetId)}`;
    await client.subscribeResource({ uri });
    const edited = Date.now();
    await book.editOutside('Orders', { E3: 'edited in Google Sheets' });
    const deadline = Date.now() + 5000;
    while (!updates.some((u) => u.uri === uri && u.at >= edited) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(updates.some((u) => u.uri === uri && u.at >= edited)).toBe(true);
    const row = await callOk(client, 'get_row', { sheet_id: sheetId, row: 2 });
    expect(row.values.Notes).toBe('edited in Google Sheets');
  });
});
