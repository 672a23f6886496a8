/**
 * Team mode with a `.csv` on a shared folder: two instances on one PostgreSQL database, each with its own copy.
 * A `.csv` append is written in place (the file grows, its inode stays), the very shape of another program's
 * save in place caught half way, which a read must not take for one (server/sources/workbook/guard/half-saved.ts):
 * what one instance appended is read whole by the other's next read, never answered 503 "being written" nor
 * from the version before. A write that rewrites the file (an update: a new file renamed over it) likewise.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

let dir: string;
let a: Harness;
let b: Harness;
let book: ConnectionRecord;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-team-csv-'));
  a = await startHarness({ store: 'postgres' });
  b = await startHarness({ store: 'postgres', databaseUrl: a.databaseUrl! });
  const file = path.join(dir, 'orders.csv');
  await writeFile(file, 'id,total\n1,10\n2,20\n');
  book = await a.connect(file);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
  await rm(dir, { recursive: true, force: true });
});

/** All the tab's rows as `h` answers them, with the status (a 503 "being written" would show here). */
async function rowsOn(h: Harness): Promise<{ status: number; ids: number[]; total: string | null }> {
  const res = await h.fetch(rowsPath(book, 'orders', '?limit=1000'));
  const body = await res.json();
  return {
    status: res.status,
    ids: res.status === 200 ? (body as { id: number }[]).map((r) => r.id) : body,
    total: res.headers.get('x-total-count'),
  };
}

const expectedIds = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('a .csv served by two instances', () => {
  it('reads what the other instance appended in place at its next read, whole, every time', async () => {
    expect((await rowsOn(b)).ids).toEqual([1, 2]); // b holds its copy, and its last version, now
    let rows = 2;
    for (let round = 0; round < 12; round++) {
      const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
      rows++;
      const res = await writer.fetch(rowsPath(book, 'orders'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: rows, total: rows * 10 }),
      });
      expect(res.status, `round ${round}`).toBe(201);
      const read = await rowsOn(reader);
      expect(read, `round ${round}`).toEqual({ status: 200, ids: expectedIds(rows), total: String(rows) });
    }
  });

  it('reads a row the other instance updated (the file rewritten and renamed) at its next read', async () => {
    const before = await rowsOn(b);
    const res = await a.fetch(rowsPath(book, 'orders', '/2'), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ total: 2222 }),
    });
    expect(res.status).toBe(200);
    const read = await b.fetch(rowsPath(book, 'orders', '/2'));
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ id: 2, total: 2222 });
    expect((await rowsOn(b)).ids).toEqual(before.ids);
  });
});
