/**
 * Tabs as MCP resources, over both transports (Streamable HTTP; stdio to a spawned `sheetport mcp`): listed per key, read as a description plus the first page as CSV,
 * and subscribed to: a save by another program (openpyxl, in place) reaches the subscribed client as
 * `notifications/resources/updated` within 2 s.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.ts';
import { type AnyJson, callOk, MCP_TRANSPORTS, mcpClient } from '../helpers/mcp-client.ts';
import { ORDER_ROWS, saveWithOpenpyxl, writeOrdersWorkbook } from '../helpers/mcp-workbook.ts';

describe.each(MCP_TRANSPORTS)('over %s', { timeout: 30_000 }, (transport) => {
  let h: Harness;
  let file: string;
  let client: Client;
  let ordersUri: string;
  let notesUri: string;
  const updates: { uri: string; at: number }[] = [];

  beforeAll(async () => {
    h = await startHarness();
    file = await writeOrdersWorkbook(h.dir);
    await h.connectBook(file);
    // The connection follower watches the files, as in a running server.
    h.context.startBackground();
    client = await mcpClient(transport, h, h.key);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push({ uri: n.params.uri, at: Date.now() });
    });
    const { resources } = await client.listResources();
    ordersUri = resources.find((r) => r.name.endsWith('/ Orders'))!.uri;
    notesUri = resources.find((r) => r.name.endsWith('/ Notes'))!.uri;
  });

  afterAll(async () => {
    await client.close();
    await h.close();
  });

  async function waitForUpdate(uri: string, after: number, withinMs: number): Promise<number | null> {
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline) {
      const seen = updates.find((u) => u.uri === uri && u.at >= after);
      if (seen) return seen.at - after;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return null;
  }

  describe('tab resources', () => {
    it('lists each tab the key reaches, by its sheet_id', async () => {
      const listed = await callOk(client, 'list_sheets');
      const ids = listed.spreadsheets[0].sheets.map((s: AnyJson) => s.sheet_id);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(
        ids.map((id: string) => `sheetport://sheets/${encodeURIComponent(id)}`),
      );
      expect(resources[0]!.mimeType).toBe('text/csv');
    });

    it('reads as its first page as CSV and its description', async () => {
      const { contents } = await client.readResource({ uri: ordersUri });
      const csv = contents.find((c) => c.mimeType === 'text/csv') as { text: string };
      const lines = csv.text.trimEnd().split('\r\n');
      expect(lines[0]).toBe('Customer,City,Amount,Shipped,Notes');
      expect(lines).toHaveLength(1 + 50);
      expect(lines[1]).toBe('Customer 001,Oslo,10.5,false,note 1');
      const description = JSON.parse(
        (contents.find((c) => c.mimeType === 'application/json') as { text: string }).text,
      );
      expect(description.row_count).toBe(ORDER_ROWS);
      expect(description.columns.map((c: AnyJson) => c.name)).toEqual([
        'Customer',
        'City',
        'Amount',
        'Shipped',
        'Notes',
      ]);
    });

    it('a subscribed client hears of a save by another program within 2 s, and only for that tab', async () => {
      await client.subscribeResource({ uri: ordersUri });
      const saved = Date.now();
      await saveWithOpenpyxl(file, 'Orders', { E2: 'edited in another program' });
      const after = await waitForUpdate(ordersUri, saved, 2000);
      expect(after, 'no resources/updated within 2 s of the save').not.toBeNull();
      expect(updates.some((u) => u.uri === notesUri)).toBe(false);
      const page = await callOk(client, 'get_row', {
        sheet_id: decodeURIComponent(ordersUri.split('/').pop()!),
        row: 1,
      });
      expect(page.values.Notes).toBe('edited in another program');
    });

    it('hears of a write through the HTTP API too, and nothing after unsubscribing', async () => {
      const sheetId = decodeURIComponent(ordersUri.split('/').pop()!);
      const before = Date.now();
      const res = await h.fetch(`/v1/sheets/${sheetId}/rows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Customer: 'From HTTP' }),
      });
      expect(res.status).toBe(201);
      expect(await waitForUpdate(ordersUri, before, 2000)).not.toBeNull();
      await client.unsubscribeResource({ uri: ordersUri });
      const quiet = Date.now() + 50;
      await h.fetch(`/v1/sheets/${sheetId}/rows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Customer: 'Unheard' }),
      });
      expect(await waitForUpdate(ordersUri, quiet, 1000)).toBeNull();
    });

    it('refuses to subscribe to a tab the key cannot reach', async () => {
      const other = await h.connect(await writeOrdersWorkbook(h.dir, 'other.xlsx'));
      const narrow = await mcpClient(
        transport,
        h,
        await h.createKey({ name: 'narrow', connections: [other.spreadsheetId] }),
      );
      try {
        await expect(narrow.subscribeResource({ uri: ordersUri })).rejects.toThrow(/forbidden/);
        await expect(narrow.readResource({ uri: ordersUri })).rejects.toThrow(/forbidden/);
        const { resources } = await narrow.listResources();
        expect(resources.map((r) => r.uri)).not.toContain(ordersUri);
      } finally {
        await narrow.close();
      }
    });
  });
});
