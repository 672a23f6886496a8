/**
 * MCP in team mode: two instances on one PostgreSQL database. A session on instance A answers from the team's
 * data and is told of a change instance B recorded (the change log is shared); a key made on one instance opens
 * a session on the other.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.ts';
import { type AnyJson, callOk, mcpOverHttp } from '../helpers/mcp-client.ts';
import { ORDER_ROWS, writeOrdersWorkbook } from '../helpers/mcp-workbook.ts';

let a: Harness;
let b: Harness;
let client: Client;
let sheetId: string;
const updates: string[] = [];

beforeAll(async () => {
  a = await startHarness({ store: 'postgres' });
  b = await startHarness({ store: 'postgres', databaseUrl: a.databaseUrl! });
  await a.connectBook(await writeOrdersWorkbook(a.dir));
  // A key made through instance B's store, used on instance A.
  client = await mcpOverHttp(a.url, await b.createKey({ name: 'agent', scope: 'read_write' }));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  const listed = await callOk(client, 'list_sheets');
  sheetId = listed.spreadsheets[0].sheets.find((s: AnyJson) => s.name === 'Orders').sheet_id;
});

afterAll(async () => {
  await client?.close();
  await b?.close();
  await a?.close();
});

describe('MCP across instances', () => {
  it("answers from the team's data and hears of a write made on the other instance", async () => {
    expect((await callOk(client, 'describe_sheet', { sheet_id: sheetId })).row_count).toBe(ORDER_ROWS);
    const uri = `sheetport://sheets/${encodeURIComponent(sheetId)}`;
    await client.subscribeResource({ uri });
    const res = await b.fetch(`/v1/sheets/${sheetId}/rows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Customer: 'Written on B' }),
    });
    expect(res.status).toBe(201);
    const deadline = Date.now() + 2000;
    while (!updates.includes(uri) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(updates).toContain(uri);
    const last = await callOk(client, 'get_row', { sheet_id: sheetId, row: ORDER_ROWS + 1 });
    expect(last.values.Customer).toBe('Written on B');
  });
});
