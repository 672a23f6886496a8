/**
 * A save in place (the file emptied, then written: openpyxl's `wb.save(path)`, a script's `open(path, 'w')`) can
 * be read half written. Through the real path, a server over HTTP with reads racing the saves:
 * - while the save can still be under way, reads are answered from the last version read whole;
 * - once it has ended, its rows are read, never a refusal remembered from the half-written file;
 * - a file left cut short is answered as damaged (502), as every damaged file is.
 */
import { closeSync, ftruncateSync, openSync, utimesSync, writeSync } from 'node:fs';
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

/** The save begins: the file is emptied, then the first half of `bytes` written. Returns the open descriptor. */
function beginSave(file: string, bytes: Buffer): number {
  const fd = openSync(file, 'r+');
  ftruncateSync(fd, 0);
  writeSync(fd, bytes, 0, bytes.length >> 1, 0);
  return fd;
}

function endSave(fd: number, bytes: Buffer): void {
  writeSync(fd, bytes, bytes.length >> 1, bytes.length - (bytes.length >> 1), bytes.length >> 1);
  closeSync(fd);
}

describe('a save in place read half written', () => {
  let h: Harness;
  let file: string;
  let book: ConnectionRecord;
  const versions: Buffer[] = [];
  const rowsOf = async () => {
    const res = await h.fetch(rowsPath(book, 'Orders'));
    return { status: res.status, body: await res.json() };
  };

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

  it('is answered from the last version read whole meanwhile, and read whole once the save has ended', async () => {
    expect((await rowsOf()).body).toHaveLength(3);
    let answeredFromBefore = 0;
    for (let round = 1; round <= 60; round++) {
      const bytes = versions[round % 2]!;
      const rowsBefore = round % 2 === 1 ? 3 : 4;
      const rowsAfter = round % 2 === 1 ? 4 : 3;
      const fd = beginSave(file, bytes);
      const during = rowsOf();
      // The rest lands at some point of that read: before it, during it, after it.
      await pause(round % 4);
      endSave(fd, bytes);
      const answer = await during;
      expect(answer.status, `round ${round}: ${JSON.stringify(answer.body)}`).toBe(200);
      expect([rowsBefore, rowsAfter], `round ${round}`).toContain(answer.body.length);
      if (answer.body.length === rowsBefore) answeredFromBefore++;
      // The save has ended: its rows, not a refusal remembered from the half-written file.
      const after = await rowsOf();
      expect(after.status, `round ${round}: ${JSON.stringify(after.body)}`).toBe(200);
      expect(after.body, `round ${round}`).toHaveLength(rowsAfter);
    }
    // Some reads did meet a half-written file (else the test shows nothing).
    expect(answeredFromBefore).toBeGreaterThan(0);
  });

  it('answers a file left cut short as damaged once it has been left alone', async () => {
    expect((await rowsOf()).body).toHaveLength(3); // the loop's last save
    const fd = beginSave(file, versions[1]!);
    closeSync(fd); // the saving program died half way
    // Moments after the change: the last version read whole.
    const meanwhile = await rowsOf();
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.body).toHaveLength(3);
    // Left alone for a while (its modification time a minute ago): the damage is the answer.
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(file, aMinuteAgo, aMinuteAgo);
    const left = await rowsOf();
    expect(left.status).toBe(502);
    expect(left.body.error.reason).toBe('corrupt');
    // And saved whole again: read.
    const again = openSync(file, 'w');
    writeSync(again, versions[1]!);
    closeSync(again);
    expect((await rowsOf()).body).toHaveLength(4);
  });
});
