/**
 * What a large workbook's write document prepared (its sheets cut into deflated pieces of rows) is kept beside the
 * file's kept read, and a restart on the same bytes takes it back instead of cutting every sheet again
 * (server/sources/workbook/ooxml/kept-sheets.ts, document-ahead.ts `prepareEveryTab`). Through the real path: a
 * server over HTTP on a data dir, stopped and started again over it, a workbook made by openpyxl with formulas
 * across several pieces of rows and made large by a part nobody reads (past the size prepared ahead), writes after
 * the restart, and openpyxl reading the file back. That the kept form was taken is seen on disk: a form taken is
 * read and left as it is; one not taken is kept anew (another file in its place).
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { KEPT_READS_DIR } from '../../../server/sources/kept-reads.ts';
import { PREPARE_AHEAD_FROM_BYTES } from '../../../server/sources/workbook/document-ahead.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { rowsByOpenpyxl } from '../../helpers/mcp-workbook.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const ROWS = 1_200; // three pieces of rows (ROWS_PER_PIECE is 500)

/** Orders: a header, then each row a name, a quantity and a formula on its own row; Notes: one row. Then a large part. */
async function makeWorkbook(file: string): Promise<void> {
  await runPython(
    `
import sys, zipfile, random, openpyxl
book, rows, blob_size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Orders'
ws.append(['Name', 'Qty', 'Double'])
for i in range(1, rows + 1):
    ws.append([f'n{i}', i, f'=B{i + 1}*2'])
wb.create_sheet('Notes').append(['Key', 'Value'])
wb.save(book)
with zipfile.ZipFile(book, 'a', zipfile.ZIP_STORED) as z:
    z.writestr('xl/media/blob.bin', random.Random(7).randbytes(blob_size))
`,
    [file, String(ROWS), String(PREPARE_AHEAD_FROM_BYTES + 2 ** 20)],
  );
}

/** Another program's save of the same file: openpyxl changes one cell (the large part goes back in). */
async function saveOutside(file: string): Promise<void> {
  await runPython(
    `
import os, sys, zipfile, openpyxl
book = sys.argv[1]
data = zipfile.ZipFile(book).read('xl/media/blob.bin')
wb = openpyxl.load_workbook(book)
wb['Orders']['A2'] = 'outside'
mine = book + '.outside.xlsx'
wb.save(mine)
with zipfile.ZipFile(mine, 'a', zipfile.ZIP_STORED) as z:
    z.writestr('xl/media/blob.bin', data)
os.replace(mine, book)
`,
    [file],
  );
}

const keptDir = (dataDir: string) => path.join(dataDir, KEPT_READS_DIR);

/** The kept prepared form's file, once it has been written (within `ms`). */
async function keptPreparedFile(dataDir: string, ms = 30_000): Promise<string> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(50)) {
    const names = await readdir(keptDir(dataDir)).catch(() => [] as string[]);
    const name = names.find((n) => n.endsWith('.prepared'));
    if (name) return path.join(keptDir(dataDir), name);
  }
  throw new Error('no prepared form was kept');
}

const inodeOf = async (file: string) => (await stat(file)).ino;
const json = { 'content-type': 'application/json' };

describe("a large workbook's prepared write document, kept across a restart", () => {
  let h: Harness | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  /** A data dir and a workbook in it, read once by a service that then stops (its prepared form kept). */
  async function servedOnce(): Promise<{ dataDir: string; book: string; connection: ConnectionRecord }> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-kept-prepared-'));
    dirs.push(dir);
    const dataDir = path.join(dir, 'data');
    const book = path.join(dir, 'orders.xlsx');
    await makeWorkbook(book);
    h = await startHarness({ dataDir });
    const connection = await h.connect(book);
    expect((await h.fetch(rowsPath(connection, 'Orders', '?limit=1'))).status).toBe(200);
    await keptPreparedFile(dataDir);
    await h.close(); // waits for a keep under way
    h = undefined;
    return { dataDir, book, connection };
  }

  it('takes it back on the same bytes, and every write after lands as without it', async () => {
    const { dataDir, book, connection } = await servedOnce();
    const kept = await keptPreparedFile(dataDir);
    const inode = await inodeOf(kept);

    h = await startHarness({ dataDir });
    const rows = rowsPath(connection, 'Orders');
    expect((await h.fetch(`${rows}?limit=1`)).status).toBe(200);
    // A delete in the first piece: the rows of every piece below move up, their formulas with them.
    expect((await h.fetch(`${rows}/10`, { method: 'DELETE' })).status).toBe(200);
    const patched = await h.fetch(`${rows}/700`, { method: 'PATCH', headers: json, body: '{"Qty":-1}' });
    expect(patched.status).toBe(200);
    const appended = await h.fetch(rows, { method: 'POST', headers: json, body: '{"Name":"last","Qty":5}' });
    expect(appended.status).toBe(201);
    expect(await inodeOf(kept)).toBe(inode); // taken: read and left as it was, not kept anew

    const written = await rowsByOpenpyxl(book, 'Orders');
    const expected: unknown[][] = [['Name', 'Qty', 'Double']];
    for (let i = 1; i <= ROWS; i++) if (i !== 10) expected.push([`n${i}`, i, `=B${expected.length + 1}*2`]);
    (expected[700] as unknown[])[1] = -1;
    expected.push(['last', 5, null]);
    expect(written).toEqual(expected);
    expect(await rowsByOpenpyxl(book, 'Notes')).toEqual([['Key', 'Value']]);
  }, 120_000);

  it('is not taken for other bytes (an outside save while stopped) nor when damaged, and is kept anew', async () => {
    const { dataDir, book, connection } = await servedOnce();
    const kept = await keptPreparedFile(dataDir);
    const rows = rowsPath(connection, 'Orders');

    await saveOutside(book);
    let inode = await inodeOf(kept);
    h = await startHarness({ dataDir });
    const patched = await h.fetch(`${rows}/3`, { method: 'PATCH', headers: json, body: '{"Qty":33}' });
    expect(patched.status).toBe(200);
    await h.close();
    h = undefined;
    expect(await inodeOf(kept)).not.toBe(inode); // the other bytes' form, kept in its place
    let written = await rowsByOpenpyxl(book, 'Orders');
    expect(written[1]).toEqual(['outside', 1, '=B2*2']);
    expect(written[3]).toEqual(['n3', 33, '=B4*2']);

    // One byte flipped among the pieces' bytes: its checksum refuses it.
    const bytes = await readFile(kept);
    const at = bytes.length - 1000;
    bytes[at] = (bytes[at] as number) ^ 0xff;
    await writeFile(kept, bytes);
    inode = await inodeOf(kept);
    h = await startHarness({ dataDir });
    expect((await h.fetch(`${rows}/5`, { method: 'DELETE' })).status).toBe(200);
    await h.close();
    h = undefined;
    expect(await inodeOf(kept)).not.toBe(inode);
    written = await rowsByOpenpyxl(book, 'Orders');
    expect(written).toHaveLength(ROWS); // the header and every row but the one deleted
    expect(written[5]).toEqual(['n6', 6, '=B6*2']);
    expect(written.at(-1)).toEqual([`n${ROWS}`, ROWS, `=B${ROWS}*2`]);
  }, 120_000);

  it("goes with the file's kept read when its connection is removed", async () => {
    const { dataDir, connection } = await servedOnce();
    const kept = async () => (await readdir(keptDir(dataDir))).filter((n) => !n.endsWith('.part')).sort();
    expect((await kept()).map((name) => path.extname(name))).toEqual(['.prepared', '.read']);
    h = await startHarness({ dataDir });
    const res = await fetch(`${h.url}/admin/connections/${connection.userKey}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${h.context.adminToken}` },
    });
    expect(res.status).toBe(200);
    expect(await kept()).toEqual([]);
  }, 120_000);
});
