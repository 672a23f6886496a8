/**
 * Another program saves the file in place (empties it, then writes it: pandas' `to_csv(path)`, openpyxl's
 * `save(path)`) and pauses half way, long enough for the file watch and a request to look at the half-written
 * file. Through the real path (a server over HTTP, its change follower, a real webhook receiver): the rows the
 * save has not written yet are never reported deleted, nor their return inserted; the save's one real edit is
 * delivered once it has ended, and nothing else.
 */
import { closeSync, ftruncateSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { connectFile } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { webhookInContext } from '../helpers/webhook-to-receiver.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ROWS = 200;
const totalOf = (id: number, edited: boolean) => (edited && id === ROWS - 1 ? 7 : id * 10);

function csvBytes(edited: boolean): Buffer {
  const lines = ['id,total'];
  for (let id = 1; id <= ROWS; id++) lines.push(`${id},${totalOf(id, edited)}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

async function xlsxBytes(edited: boolean): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Orders');
  ws.addRow(['id', 'total']);
  for (let id = 1; id <= ROWS; id++) ws.addRow([id, totalOf(id, edited)]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** Where the save pauses: half way, inside a line for a .csv (a save's buffer is flushed wherever it is full). */
function pausePoint(bytes: Buffer, csv: boolean): number {
  const half = bytes.length >> 1;
  if (!csv) return half;
  const lineEnd = bytes.indexOf('\n', half);
  return lineEnd - 2; // inside the line: before its last digit and its CRLF
}

/** The save's one real edit arrives, and nothing else: no row reported deleted or inserted on the way. */
async function expectOnlyTheEdit(receiver: Receiver): Promise<void> {
  await receiver.waitFor(1, 10_000);
  // Room for a late, wrong delivery (the poll, the watch) to arrive before the count is taken.
  await pause(2500);
  const events = receiver.received.map((r) => r.json);
  expect(
    events.map((e) => e.event),
    JSON.stringify(events).slice(0, 600),
  ).toEqual(['row.updated']);
  expect(events[0]).toMatchObject({
    changed_rows: [{ before: { id: ROWS - 1, total: (ROWS - 1) * 10 }, after: { id: ROWS - 1, total: 7 } }],
  });
}

let h: Harness;
afterEach(() => h?.close());

describe.each([
  ['.csv', 'orders.csv', 'orders'],
  ['.xlsx', 'orders.xlsx', 'Orders'],
])('a %s saved in place, paused half way, sends only its real edit', (_kind, name, sheet) => {
  it('delivers one row.updated for the edited row, and no row deleted or inserted', async () => {
    const csv = name.endsWith('.csv');
    h = await startHarness();
    h.context.startBackground();
    const file = path.join(h.dir, name);
    const before = csv ? csvBytes(false) : await xlsxBytes(false);
    const after = csv ? csvBytes(true) : await xlsxBytes(true);
    writeFileSync(file, before);
    const book = await h.connect(file);
    const { receiver } = await webhookInContext(h.context, book, { sheetName: sheet });
    const rowsOf = async () => {
      const res = await h.fetch(rowsPath(book, sheet, '?limit=1000'));
      return { status: res.status, body: await res.json() };
    };
    expect((await rowsOf()).body).toHaveLength(ROWS);

    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 0);
    const at = pausePoint(after, csv);
    writeSync(fd, after, 0, at, 0);
    // Longer than the file watch's quiet time: the follower looks at the half-written file; so does a reader.
    await pause(700);
    const meanwhile = await rowsOf();
    expect(meanwhile.status, JSON.stringify(meanwhile.body).slice(0, 300)).toBe(200);
    expect(meanwhile.body).toHaveLength(ROWS);
    await pause(300);
    writeSync(fd, after, at, after.length - at, at);
    closeSync(fd);

    await expectOnlyTheEdit(receiver);
    const read = await rowsOf();
    expect(read.body).toHaveLength(ROWS);
    expect(read.body[ROWS - 2]).toMatchObject({ id: ROWS - 1, total: 7 });
    await receiver.close();
  });
});

describe('a .csv being saved in place when the service starts', () => {
  it('is not diffed half written against the stored baseline: only its real edit is sent', async () => {
    const { createServiceContext } = await import('../../server/context.ts');
    h = await startHarness();
    const file = path.join(h.dir, 'orders.csv');
    const dataDir = path.join(h.dir, 'restart-data');
    writeFileSync(file, csvBytes(false));
    // First run: the tab is seen (its baseline stored), a webhook registered, then the service stops.
    const first = createServiceContext({ dataDir, log: () => {} });
    const book = await connectFile(first.connections, file);
    const { receiver } = await webhookInContext(first, book, { sheetName: 'orders' });
    await first.close();
    // Another program saves the file in place, flushing whole lines every 20 ms, as the service starts again.
    const after = csvBytes(true);
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 0);
    let written = 0;
    const flush = () => {
      const end = Math.min(after.length, after.indexOf('\n', written + 100) + 1 || after.length);
      writeSync(fd, after, written, end - written, written);
      written = end;
    };
    flush();
    const second = createServiceContext({ dataDir, log: () => {} });
    second.startBackground();
    while (written < after.length) {
      await pause(20);
      flush();
    }
    closeSync(fd);
    await expectOnlyTheEdit(receiver);
    await second.close();
    await receiver.close();
  });
});
