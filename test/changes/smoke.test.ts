import { afterEach, describe, expect, it } from 'vitest';
import { toPublicSheetId } from '../../server/connections/sheet-id.ts';
import { connectFile, writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { webhookInContext } from '../helpers/webhook-to-receiver.ts';

let h: Harness;
afterEach(() => h?.close());

describe('API writes notify webhooks', () => {
  it('an append reaches a real receiver as one signed row.inserted', async () => {
    h = await startHarness();
    h.context.startBackground();
    const conn = await h.connect(await writePeopleWorkbook(h.dir));
    const { receiver, webhookId, sourceSheetId } = await webhookInContext(h.context, conn);
    const res = await h.fetch(rowsPath(conn, 'People'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"Name":"Dee","Age":52}',
    });
    expect(res.status).toBe(201);
    await receiver.waitFor(1);
    const [r] = receiver.received;
    expect(r!.signatureOk).toBe(true);
    expect(r!.standardOk).toBe(true);
    expect(r!.json).toMatchObject({
      webhook_id: webhookId,
      event: 'row.inserted',
      spreadsheet_id: conn.spreadsheetId,
      sheet_name: 'People',
      changed_rows: [{ row_index: 7, before: null, after: { Name: 'Dee', Age: 52 } }],
    });
    expect(r!.headers['x-service-event']).toBe('row.inserted');
    expect(toPublicSheetId(conn.spreadsheetId, sourceSheetId)).toContain('~');
    await receiver.close();
  });
});

describe('changes made while SheetPort was stopped', () => {
  it('are found against the stored baseline on the next start and sent', async () => {
    const { createServiceContext } = await import('../../server/context.ts');
    const ExcelJS = (await import('exceljs')).default;
    const path = await import('node:path');
    h = await startHarness();
    const file = await writePeopleWorkbook(h.dir, 'offline.xlsx');
    const dataDir = path.join(h.dir, 'offline-data');
    // First run: the tab is seen once (its baseline stored), a webhook registered, then the service stops.
    const first = createServiceContext({ dataDir, log: () => {} });
    const conn = await connectFile(first.connections, file);
    const { receiver } = await webhookInContext(first, conn, { events: ['row.updated'] });
    await first.close();
    // Meanwhile the user edits the sheet.
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    wb.getWorksheet('People')!.getCell('A2').value = 'Ann (offline)';
    await wb.xlsx.writeFile(file);
    // Next start: the watcher looks at every workbook and the diff against the baseline finds the edit.
    const second = createServiceContext({ dataDir, log: () => {} });
    second.startBackground();
    await receiver.waitFor(1, 5000);
    expect(receiver.received[0]!.json).toMatchObject({
      event: 'row.updated',
      changed_rows: [{ row_index: 1, before: { Name: 'Ann' }, after: { Name: 'Ann (offline)' } }],
    });
    await second.close();
    await receiver.close();
  });
});
