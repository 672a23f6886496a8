/**
 * A read made while a write is in progress is answered at once, from the snapshot before the write, and sees the
 * write only once the write is answered. The write is held at each stage where it can wait, by a hook of a real
 * seam the test releases (never a clock): (a) its turn waiting for the spreadsheet's owner (`Ownership.renew`),
 * (b) inside the file's write, its new bytes ready but the file not replaced yet (`beforeFileReplace`), (c) the
 * file replaced but the change not recorded yet (the change recorder). The workbook is written by openpyxl.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { InProcessOwnership, type Lease, type Ownership } from '../../server/spreadsheets/ownership.ts';
import { fileHash } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

const run = promisify(execFile);

/** Rows already in the tab, and rows the held write appends: a write large enough to take real work. */
const ROWS = 3000;
const APPENDED = 500;

/** A tab `Tasks` (id, title, done) of ROWS rows, saved by openpyxl. */
async function writeTasks(dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  const script = `
import sys, openpyxl
wb = openpyxl.Workbook(); ws = wb.active; ws.title = 'Tasks'
ws.append(['id', 'title', 'done'])
for i in range(1, ${ROWS} + 1): ws.append([i, 'task %d' % i, i % 2 == 0])
wb.save(sys.argv[1])`;
  await run('/usr/bin/python3', ['-c', script, file]);
  return file;
}

/** Where a hook waits: once armed, the next call waits there until `open()`; `reached` says it is waiting. */
class Gate {
  #armed = false;
  #reached: () => void = () => {};
  #open: () => void = () => {};
  reached: Promise<void> = Promise.resolve();

  arm(): void {
    this.#armed = true;
    this.reached = new Promise((resolve) => {
      this.#reached = resolve;
    });
  }

  async pass(): Promise<void> {
    if (!this.#armed) return;
    this.#armed = false;
    const opened = new Promise<void>((resolve) => {
      this.#open = resolve;
    });
    this.#reached();
    await opened;
  }

  open(): void {
    this.#open();
  }
}

/** This process's ownership, whose `renew` (asked before each write turn touches the source) waits at a gate. */
class HeldOwnership implements Ownership {
  readonly gate = new Gate();
  readonly #inner = new InProcessOwnership();
  readonly writers = this.#inner.writers;
  exclusive<T>(spreadsheetId: string, work: () => Promise<T>): Promise<T> {
    return this.#inner.exclusive(spreadsheetId, work);
  }
  acquire(spreadsheetId: string): Promise<Lease | null> {
    return this.#inner.acquire(spreadsheetId);
  }
  async renew(lease: Lease): Promise<boolean> {
    await this.gate.pass();
    return this.#inner.renew(lease);
  }
  release(lease: Lease, reason?: Parameters<Ownership['release']>[1]): Promise<void> {
    return this.#inner.release(lease, reason);
  }
}

const ownership = new HeldOwnership();
const beforeReplace = new Gate();
const beforeRecord = new Gate();
let h: Harness;
let n = 0;

beforeAll(async () => {
  h = await startHarness({ seams: { ownership, beforeFileReplace: () => beforeReplace.pass() } });
  // The recorder the service writes each change with, held at a gate before it records (the real one then runs).
  const recorder = h.context.recorder;
  const record = recorder.record.bind(recorder);
  recorder.record = async (...args) => {
    await beforeRecord.pass();
    return record(...args);
  };
});
afterAll(() => h.close());

/** What the two read routes answer now: the `/api` listing's highest id and total, the `/v1` total. */
async function readBoth(conn: ConnectionRecord, sheetId: string) {
  const api = await h.fetch(rowsPath(conn, 'Tasks', '?sort=-id&limit=1'));
  const v1 = await h.fetch(`/v1/sheets/${encodeURIComponent(sheetId)}/rows?limit=1`);
  const rows = (await api.json()) as { id: number }[];
  return {
    status: [api.status, v1.status],
    apiTotal: Number(api.headers.get('x-total-count')),
    apiLast: rows.at(-1)?.id,
    v1Total: (await v1.json()).meta.total,
  };
}

/** Connect a fresh workbook, read it once (the copy every later read is served from), write it once if asked. */
async function connected(warmWrite: boolean) {
  const file = await writeTasks(h.dir, `tasks-${++n}.xlsx`);
  const conn = (await h.connectBook(file)).connection;
  const { sheets } = await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
  const sheetId = sheets[0].sheet_id as string;
  let total = ROWS;
  if (warmWrite) {
    const res = await append(conn, 1, ROWS + 1);
    expect(res.status).toBe(201);
    total += 1;
  }
  expect(await readBoth(conn, sheetId)).toEqual({
    status: [200, 200],
    apiTotal: total,
    apiLast: total,
    v1Total: total,
  });
  return { file, conn, sheetId, total };
}

function append(conn: ConnectionRecord, count: number, from = 100_000) {
  const rows = Array.from({ length: count }, (_, i) => ({ id: from + i, title: `new ${i}`, done: false }));
  return h.fetch(rowsPath(conn, 'Tasks'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rows),
  });
}

/**
 * Arm `gate`, start a large append, and once it waits there read both routes: each read must be answered with
 * the rows before the write while the write is still unanswered. Then release it and see it answered and read.
 */
async function readWhileHeld(gate: Gate, warmWrite: boolean, fileReplaced: boolean) {
  const { file, conn, sheetId, total } = await connected(warmWrite);
  const hashBefore = await fileHash(file);
  gate.arm();
  let settled = false;
  const write = append(conn, APPENDED).finally(() => {
    settled = true;
  });
  await gate.reached;
  // The stage the write is held at: the file is, or is not yet, replaced.
  expect((await fileHash(file)) !== hashBefore).toBe(fileReplaced);

  for (let i = 0; i < 3; i++) {
    expect(await readBoth(conn, sheetId)).toEqual({
      status: [200, 200],
      apiTotal: total,
      apiLast: total,
      v1Total: total,
    });
  }
  expect(settled).toBe(false);

  gate.open();
  const res = await write;
  expect(res.status).toBe(201);
  expect(await res.json()).toEqual({ appended: APPENDED });
  expect(await readBoth(conn, sheetId)).toEqual({
    status: [200, 200],
    apiTotal: total + APPENDED,
    apiLast: 100_000 + APPENDED - 1,
    v1Total: total + APPENDED,
  });
}

describe('a read during a write', () => {
  it('is answered from the previous rows while the write waits for its turn (owner check)', async () => {
    await readWhileHeld(ownership.gate, false, false);
  });

  it('is answered from the previous rows while the file write is ready but the file not yet replaced', async () => {
    await readWhileHeld(beforeReplace, false, false);
  });

  it('is answered from the previous rows after the file was replaced, until the write is recorded and answered', async () => {
    await readWhileHeld(beforeRecord, true, true);
  });
});

describe('a read during the first write since the service started', () => {
  it('is answered from the rows before it while the file write is not yet replaced', async () => {
    const file = await writeTasks(h.dir, `tasks-${++n}.xlsx`);
    const conn = (await h.connectBook(file)).connection;
    // Nothing has read it: the write itself is the first to.
    beforeReplace.arm();
    let settled = false;
    const write = append(conn, APPENDED).finally(() => {
      settled = true;
    });
    await beforeReplace.reached;
    const { sheets } = await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
    expect(sheets[0].row_count).toBe(ROWS);
    expect(await readBoth(conn, sheets[0].sheet_id)).toEqual({
      status: [200, 200],
      apiTotal: ROWS,
      apiLast: ROWS,
      v1Total: ROWS,
    });
    expect(settled).toBe(false);
    beforeReplace.open();
    expect((await write).status).toBe(201);
    expect((await readBoth(conn, sheets[0].sheet_id)).v1Total).toBe(ROWS + APPENDED);
  });
});
