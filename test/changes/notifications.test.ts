import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { toPublicSheetId } from '../../server/connections/sheet-id.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import type { WebhookEvent } from '../../server/repositories/webhooks.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { webhookInContext } from '../helpers/webhook-to-receiver.ts';

const ALL: WebhookEvent[] = ['row.inserted', 'row.updated', 'row.deleted', 'bulk.import'];
let h: Harness;
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
  await h?.close();
});

/** A running service with the People workbook, a webhook on its People tab and a verifying receiver. */
async function setup(events: WebhookEvent[] = ALL) {
  h = await startHarness();
  h.context.startBackground();
  const file = await writePeopleWorkbook(h.dir);
  const conn = await h.connect(file);
  const { receiver, webhookId, sourceSheetId } = await webhookInContext(h.context, conn, { events });
  closers.push(receiver.close);
  return { conn, file, receiver, webhookId, sheetId: toPublicSheetId(conn.spreadsheetId, sourceSheetId) };
}

const json = (method: string, body: unknown) => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function write(conn: ConnectionRecord, rest: string, init: RequestInit) {
  const res = await h.fetch(rowsPath(conn, 'People', rest), init);
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

describe('notifications from API writes', () => {
  it('append, PUT and DELETE each send one signed notification of their type', async () => {
    const { conn, receiver, webhookId } = await setup();
    await write(conn, '', json('POST', [{ Name: 'Dee' }, { Name: 'Eve', Age: 3 }]));
    await receiver.waitFor(1);
    await write(conn, '/2', json('PUT', { Age: 26 }));
    await receiver.waitFor(2);
    await write(conn, '/3', { method: 'DELETE' });
    await receiver.waitFor(3);
    const [inserted, updated, deleted] = receiver.received.map((r) => r.json);
    expect(receiver.received.every((r) => r.signatureOk && r.standardOk)).toBe(true);
    expect(inserted).toMatchObject({
      webhook_id: webhookId,
      event: 'row.inserted',
      sheet_name: 'People',
      changed_rows: [
        { row_index: 7, before: null, after: { Name: 'Dee', Age: null } },
        { row_index: 8, before: null, after: { Name: 'Eve', Age: 3 } },
      ],
    });
    expect(updated).toMatchObject({
      event: 'row.updated',
      changed_rows: [{ row_index: 2, before: { Name: 'bob', Age: 25 }, after: { Name: 'bob', Age: 26 } }],
    });
    expect(deleted).toMatchObject({
      event: 'row.deleted',
      changed_rows: [{ row_index: 3, before: { Name: 'Cid, Jr.' }, after: null }],
    });
    expect((inserted!.timestamp as string) < (updated!.timestamp as string)).toBe(true);
    expect(inserted!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery'])).size).toBe(3);
  });

  it('a batch touching more than 100 rows is one bulk.import, truncated past 500 entries', async () => {
    const { receiver, sheetId } = await setup();
    const batch = (n: number) =>
      h.fetch(
        `/v1/sheets/${encodeURIComponent(sheetId)}/rows:batchUpdate`,
        json('POST', {
          mutations: Array.from({ length: n }, (_, i) => ({ op: 'append', values: { Name: `b${i}` } })),
        }),
      );
    expect((await batch(150)).status).toBe(200);
    await receiver.waitFor(1);
    expect(receiver.received[0]!.json).toMatchObject({ event: 'bulk.import' });
    expect(receiver.received[0]!.json.changed_rows).toHaveLength(150);
    expect(receiver.received[0]!.json.truncated).toBeUndefined();
    expect((await batch(500)).status).toBe(200);
    await receiver.waitFor(2);
    expect(receiver.received[1]!.json.changed_rows).toHaveLength(500);
    expect(receiver.received[1]!.json.truncated).toBeUndefined();
  });

  it('sends only the subscribed event types', async () => {
    const { conn, receiver } = await setup(['row.deleted']);
    await write(conn, '', json('POST', { Name: 'ignored' }));
    await write(conn, '/1', { method: 'DELETE' });
    await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received.map((r) => r.json.event)).toEqual(['row.deleted']);
  });
});

describe('notifications from edits made in the sheet', () => {
  it('a save by another program is noticed within 2 s and sent as row.updated', async () => {
    const { file, receiver } = await setup();
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    wb.getWorksheet('People')!.getCell('B2').value = 99;
    const saved = Date.now();
    await wb.xlsx.writeFile(path.join(file));
    await receiver.waitFor(1, 2000);
    const latency = Date.now() - saved;
    expect(latency).toBeLessThan(2000);
    expect(receiver.received[0]!.json).toMatchObject({
      event: 'row.updated',
      changed_rows: [{ row_index: 1, before: { Name: 'Ann', Age: 31 }, after: { Name: 'Ann', Age: 99 } }],
    });
  });

  it('a row deleted in the sheet is one row.deleted, not an update of every row below', async () => {
    const { file, receiver } = await setup();
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    wb.getWorksheet('People')!.spliceRows(3, 1); // sheet row 3 = API row 2 (bob)
    await wb.xlsx.writeFile(file);
    await receiver.waitFor(1, 3000);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.json).toMatchObject({
      event: 'row.deleted',
      changed_rows: [{ row_index: 2, before: { Name: 'bob' }, after: null }],
    });
  });

  it('a change of more than 500 rows is one bulk.import with 500 entries and truncated: true', async () => {
    const { file, receiver } = await setup();
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const ws = wb.getWorksheet('People')!;
    for (let i = 0; i < 600; i++) ws.addRow([`imported ${i}`, i]);
    await wb.xlsx.writeFile(file);
    await receiver.waitFor(1, 3000);
    const payload = receiver.received[0]!.json;
    expect(payload).toMatchObject({ event: 'bulk.import', truncated: true });
    expect(payload.changed_rows).toHaveLength(500);
    expect((payload.changed_rows as { row_index: number }[])[0]!.row_index).toBe(7);
  });

  it("SheetPort's own writes are not seen a second time by the watcher", async () => {
    const { conn, receiver } = await setup();
    await write(conn, '', json('POST', { Name: 'once' }));
    await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 2500)); // past a watch event and a poll
    expect(receiver.received).toHaveLength(1);
  });
});
