/**
 * A save in place (the file truncated, then written: openpyxl's `wb.save(path)`, a script's `open(path, 'w')`)
 * can be read half written. That read fails, and a failure is remembered until the file changes
 * (hostile-files.test.ts); what must never happen is that it is remembered for the finished save, which
 * then answers 502 until the next one. Through the real path: a server over HTTP, reads racing the saves.
 */
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';

async function ordersBytes(rows: number): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Orders');
  ws.addRow(['id', 'total']);
  for (let i = 1; i <= rows; i++) ws.addRow([i, i * 10]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a save in place read half written', () => {
  let h: Harness;
  let file: string;
  let book: ConnectionRecord;
  const versions: Buffer[] = [];

  beforeAll(async () => {
    h = await startHarness();
    file = path.join(h.dir, 'orders.xlsx');
    versions.push(await ordersBytes(3), await ordersBytes(4));
    const fd = openSync(file, 'w');
    writeSync(fd, versions[0]!);
    closeSync(fd);
    book = await h.connect(file);
  });
  afterAll(async () => {
    await h.close();
  });

  it('is read whole once the save has ended, whatever the read in the middle of it answered', async () => {
    let tornAnswers = 0;
    for (let round = 1; round <= 60; round++) {
      const bytes = versions[round % 2]!;
      // The save begins: the file is emptied, then half of it written.
      const fd = openSync(file, 'r+');
      ftruncateSync(fd, 0);
      writeSync(fd, bytes, 0, bytes.length >> 1, 0);
      const during = h.fetch(rowsPath(book, 'Orders'));
      // The rest lands at some point of that read: before it, during it, after it.
      await pause(round % 4);
      writeSync(fd, bytes, bytes.length >> 1, bytes.length - (bytes.length >> 1), bytes.length >> 1);
      closeSync(fd);
      const answer = await during;
      await answer.arrayBuffer();
      if (answer.status !== 200) tornAnswers++;
      // The save has ended: its rows, not a failure remembered from the half-written file.
      const after = await h.fetch(rowsPath(book, 'Orders'));
      const body = await after.json();
      expect(after.status, `round ${round}: ${JSON.stringify(body)}`).toBe(200);
      expect(body, `round ${round}`).toHaveLength(round % 2 === 0 ? 3 : 4);
    }
    // The rounds did meet half-written files (else the test shows nothing).
    expect(tornAnswers).toBeGreaterThan(0);
  });
});
