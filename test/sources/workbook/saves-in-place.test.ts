/**
 * A save in place (the file emptied, then written: openpyxl's `wb.save(path)`, a script's `open(path, 'w')`) can
 * be read half written. Through the real path, a server over HTTP with reads racing the saves:
 * - while the save can still be under way, reads are answered from the last version read whole;
 * - once it has ended, its rows are read, never a refusal remembered from the half-written file;
 * - a write meanwhile is told to ask again: 503 with `Retry-After`, nothing written;
 * - a file left cut short, or never read whole, is answered as damaged (502), as every damaged file is.
 */
import {
  appendFileSync,
  closeSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness, type TestResponse } from '../../helpers/harness.ts';

async function ordersBytes(rows: number): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Orders');
  ws.addRow(['id', 'total']);
  for (let i = 1; i <= rows; i++) ws.addRow([i, i * 10]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a read answered from the last version while another program's save is under way says of itself. */
const STALE = '110 - "Response is Stale"';

/** A row appended to `tab` through the API. */
const appendRow = (h: Harness, book: ConnectionRecord, tab: string, row: Record<string, unknown>) =>
  h.fetch(rowsPath(book, tab), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(row),
  });

/** A write refused as made during another program's save: 503 with `Retry-After`; returns its seconds. */
async function expectSaveUnderWay(res: TestResponse, fileName: string): Promise<number> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(503);
  expect(body.error).toMatchObject({ code: 'upstream_unavailable', reason: 'save_under_way' });
  expect(body.error.message).toContain(
    `"${fileName}" is being written: another program is most likely still saving it`,
  );
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(body.error.retry_after).toBe(retryAfter);
  return retryAfter;
}

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
    const headers = { warning: res.headers.get('warning'), age: Number(res.headers.get('x-data-age')) };
    return { status: res.status, body: await res.json(), ...headers };
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
      // An answer from the last version says it is behind the file (the save began before the read).
      const fromBefore = answer.body.length === rowsBefore;
      expect(answer.warning, `round ${round}`).toBe(fromBefore ? STALE : null);
      if (fromBefore) answeredFromBefore++;
      // The save has ended: its rows, not a refusal remembered from the half-written file.
      const after = await rowsOf();
      expect(after.status, `round ${round}: ${JSON.stringify(after.body)}`).toBe(200);
      expect(after.body, `round ${round}`).toHaveLength(rowsAfter);
      expect(after.warning, `round ${round}`).toBeNull();
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
    expect(meanwhile.warning).toBe(STALE);
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

  it('tells a write during the save to ask again (503, Retry-After), writes nothing, and takes it once saved', async () => {
    expect((await rowsOf()).body).toHaveLength(4);
    const fd = beginSave(file, versions[0]!);
    const append = () => appendRow(h, book, 'Orders', { id: 9, total: 90 });
    expect([1, 2]).toContain(await expectSaveUnderWay(await append(), 'orders.xlsx'));
    // Nothing written: the file holds what the other program has written so far.
    expect(readFileSync(file)).toEqual(versions[0]!.subarray(0, versions[0]!.length >> 1));
    endSave(fd, versions[0]!);
    // Asked again, as told: made on the finished save.
    const taken = await append();
    expect(taken.status, JSON.stringify(await taken.json())).toBe(201);
    expect((await rowsOf()).body.map((r: { id: number }) => r.id)).toEqual([1, 2, 3, 9]);
  });

  it('says in Retry-After the time left of the save at each refusal, and in X-Data-Age how long reads have been behind it', async () => {
    const fd = beginSave(file, versions[1]!);
    // Dated a second ahead (another machine's clock on a shared folder), so the save's 2 s last a while here.
    const ahead = new Date(Date.now() + 1000);
    utimesSync(file, ahead, ahead);
    const until = statSync(file).mtimeMs + 2000;
    const refusedWithin = async () => {
      const before = Date.now();
      const res = await appendRow(h, book, 'Orders', { id: 10, total: 100 });
      const after = Date.now();
      const retryAfter = await expectSaveUnderWay(res, 'orders.xlsx');
      expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((until - after) / 1000));
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil((until - before) / 1000));
    };
    // Reads meanwhile: the last version, stale, and as old as the wait (X-Data-Age, whole seconds).
    const first = await rowsOf();
    expect(first).toMatchObject({ status: 200, warning: STALE, age: 0 });
    await refusedWithin();
    await pause(1000);
    await refusedWithin(); // the same refusal remembered, with the time left now
    const later = await rowsOf();
    expect(later).toMatchObject({ status: 200, warning: STALE });
    expect(later.age).toBeGreaterThanOrEqual(1);
    endSave(fd, versions[1]!);
    expect(await rowsOf()).toMatchObject({ status: 200, warning: null, age: 0 });
    expect((await rowsOf()).body).toHaveLength(4);
  });
});

describe('a workbook cut short when the service starts', () => {
  it('is answered as damaged (502) at once: with no version read whole, a save cannot be told from damage', async () => {
    const first = await startHarness();
    const file = path.join(first.dir, 'orders.xlsx');
    const dataDir = path.join(first.dir, 'kept-data');
    writeFileSync(file, await ordersBytes(3));
    const second = await startHarness({ dataDir });
    const book = await second.connect(file);
    await second.close();
    const bytes = await ordersBytes(5);
    const fd = beginSave(file, bytes);
    const third = await startHarness({ dataDir });
    try {
      const read = await third.fetch(rowsPath(book, 'Orders'));
      const refusal = await read.json();
      expect(read.status, JSON.stringify(refusal)).toBe(502);
      expect(refusal.error).toMatchObject({ code: 'upstream_error', reason: 'corrupt' });
      endSave(fd, bytes);
      // Saved whole moments later: read, not the refusal remembered for the half-written version.
      const again = await third.fetch(rowsPath(book, 'Orders'));
      expect(again.status).toBe(200);
      expect(await again.json()).toHaveLength(5);
    } finally {
      await third.close();
      await first.close();
    }
  });
});

describe('a .csv saved in place read half written', () => {
  let h: Harness;
  let file: string;
  let book: ConnectionRecord;
  const rowsOf = async () => {
    const res = await h.fetch(rowsPath(book, 'orders'));
    return { status: res.status, body: await res.json(), warning: res.headers.get('warning') };
  };
  const lines = (rows: number) => [
    'id,total',
    ...Array.from({ length: rows }, (_, i) => `${i + 1},${(i + 1) * 10}`),
  ];

  beforeAll(async () => {
    h = await startHarness();
    file = path.join(h.dir, 'orders.csv');
    writeFileSync(file, `${lines(3).join('\n')}\n`);
    book = await h.connect(file);
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers the last version while it ends inside a line, refuses a write, and reads it once left alone', async () => {
    expect((await rowsOf()).body).toHaveLength(3);
    // Emptied, then written up to the middle of the fourth row's line.
    const text = `${lines(5).join('\n')}\n`;
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 0);
    writeSync(fd, text.slice(0, text.indexOf('4,40') + 3));
    closeSync(fd);
    const meanwhile = await rowsOf();
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.body).toHaveLength(3);
    expect(meanwhile.warning).toBe(STALE);
    // A write now would be made on rows the other program has not written yet: refused, nothing written.
    const before = readFileSync(file, 'utf8');
    expect([1, 2]).toContain(
      await expectSaveUnderWay(await appendRow(h, book, 'orders', { id: 9, total: 90 }), 'orders.csv'),
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
    // Left alone that way (a writer that ends without a line break): read as it is, the last line's row whole.
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(file, aMinuteAgo, aMinuteAgo);
    const left = await rowsOf();
    expect(left.status).toBe(200);
    expect(left.warning).toBeNull();
    expect(left.body.map((r: { id: number }) => r.id)).toEqual([1, 2, 3, 4]);
    expect(left.body[3]).toEqual({ id: 4, total: 4 });
  });

  it("answers the last version while a save paused at a line's end goes on writing", async () => {
    writeFileSync(file, `${lines(3).join('\n')}\n`);
    expect((await rowsOf()).body).toHaveLength(3);
    // The save changes row 2 and adds five rows; its buffer is flushed just past row 5's line break.
    const text = `${lines(8).join('\n').replace('2,20', '2,21')}\n`;
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 0);
    const lineEnd = text.indexOf('5,50') + 5;
    writeSync(fd, text.slice(0, lineEnd), 0);
    const during = rowsOf();
    await pause(30); // the writer's next flush, well within the quiet time a finished save keeps
    writeSync(fd, text.slice(lineEnd, lineEnd + 5), lineEnd);
    const answer = await during;
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toHaveLength(3);
    expect(answer.body[1]).toEqual({ id: 2, total: 20 });
    writeSync(fd, text.slice(lineEnd + 5), lineEnd + 5);
    closeSync(fd);
    await pause(200); // the save has held still since: its rows
    const after = (await rowsOf()).body;
    expect(after).toHaveLength(8);
    expect(after[1]).toEqual({ id: 2, total: 21 });
  });

  it("is caught after SheetPort's own write too (a new file, renamed over the last)", async () => {
    writeFileSync(file, `${lines(3).join('\n')}\n`);
    expect((await rowsOf()).body).toHaveLength(3);
    const update = await h.fetch(rowsPath(book, 'orders', '/1'), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{"total":11}',
    });
    expect(update.status, await update.text()).toBe(200);
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 0);
    writeSync(fd, 'id,total\n1,11\n2,2');
    closeSync(fd);
    const meanwhile = await rowsOf();
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.body).toEqual([
      { id: 1, total: 11 },
      { id: 2, total: 20 },
      { id: 3, total: 30 },
    ]);
  });

  it('reads lines appended in place at once, and a file saved by rename at once', async () => {
    writeFileSync(file, `${lines(3).join('\n')}\n`);
    expect((await rowsOf()).body).toHaveLength(3);
    appendFileSync(file, '4,40\n');
    expect((await rowsOf()).body).toHaveLength(4); // the last version's bytes are where they were
    // A save by rename is a new file, whole, whatever it holds (even a shorter one, just now).
    writeFileSync(`${file}.tmp`, `${lines(2).join('\n')}\n`);
    renameSync(`${file}.tmp`, file);
    expect((await rowsOf()).body).toHaveLength(2);
  });

  it('reads at once a save that ends with a line break, and an emptied file once left alone', async () => {
    writeFileSync(file, `${lines(6).join('\n')}\n`);
    expect((await rowsOf()).body).toHaveLength(6);
    writeFileSync(file, '');
    expect((await rowsOf()).body).toHaveLength(6); // emptied moments ago: the save has only begun
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(file, aMinuteAgo, aMinuteAgo);
    const left = await rowsOf(); // what an empty file holds: no rows
    expect(left.status, JSON.stringify(left.body)).toBe(200);
    expect(left.body).toEqual([]);
  });
});
