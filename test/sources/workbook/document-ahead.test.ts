/**
 * A large workbook's write document is prepared behind its read (server/sources/workbook/document-ahead.ts), so
 * its first write does not pay for it. Through the real path: a server over HTTP, a workbook made large by a part
 * nobody reads (random bytes past the size that is prepared ahead: the sheets stay small and the checks fast), writes right after the read,
 * another program's save in between, and openpyxl reading the file back.
 */
import { stat } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { PREPARE_AHEAD_FROM_BYTES } from '../../../server/sources/workbook/document-ahead.ts';
import { writePeopleWorkbook } from '../../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { rowsByOpenpyxl } from '../../helpers/mcp-workbook.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const BLOB = 'xl/media/sheetport-test-blob.bin';

/** Adds an incompressible part past that size to the package (stored, as another zip tool would); its SHA-256. */
async function addLargePart(file: string, seed: number): Promise<string> {
  const out = await runPython(
    `
import sys, zipfile, random, hashlib
data = random.Random(int(sys.argv[2])).randbytes(int(sys.argv[4]))
with zipfile.ZipFile(sys.argv[1], 'a', zipfile.ZIP_STORED) as z:
    z.writestr(sys.argv[3], data)
print(hashlib.sha256(data).hexdigest())
`,
    [file, String(seed), BLOB, String(PREPARE_AHEAD_FROM_BYTES + 2 ** 20)],
  );
  return out.trim();
}

/** The SHA-256 of the large part as the file holds it now. */
async function largePartHash(file: string): Promise<string> {
  const out = await runPython(
    `
import sys, zipfile, hashlib
print(hashlib.sha256(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2])).hexdigest())
`,
    [file, BLOB],
  );
  return out.trim();
}

/** Another program's save: openpyxl adds a row, the large part goes back in, and the copy is renamed over. */
async function saveOutside(file: string, name: string): Promise<void> {
  await runPython(
    `
import os, sys, zipfile, random
import openpyxl
book, name, blob = sys.argv[1], sys.argv[2], sys.argv[3]
data = zipfile.ZipFile(book).read(blob)
wb = openpyxl.load_workbook(book)
wb['People'].append([name, 5])
mine = os.path.join(os.path.dirname(book), '.outside-save.xlsx')
wb.save(mine)
with zipfile.ZipFile(mine, 'a', zipfile.ZIP_STORED) as z:
    z.writestr(blob, data)
os.replace(mine, book)
`,
    [file, name, BLOB],
  );
}

const names = (rows: unknown[][]) => rows.slice(1).map((r) => r[0]);

describe('a large workbook: the first write after a read', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('lands as any write does when it comes at once, and so do the next ones', async () => {
    h = await startHarness();
    const book = await writePeopleWorkbook(h.dir);
    const blob = await addLargePart(book, 1);
    expect((await stat(book)).size).toBeGreaterThanOrEqual(PREPARE_AHEAD_FROM_BYTES);
    const connection = await h.connect(book);
    const rows = rowsPath(connection, 'People');
    expect((await h.fetch(rows)).status).toBe(200); // the read; the document is being prepared behind it

    const json = { 'content-type': 'application/json' };
    const patched = await h.fetch(`${rows}/1`, { method: 'PATCH', headers: json, body: '{"Age":99}' });
    expect(patched.status).toBe(200);
    const appended = await h.fetch(rows, { method: 'POST', headers: json, body: '{"Name":"Dee","Age":7}' });
    expect(appended.status).toBe(201);
    expect((await h.fetch(`${rows}/2`, { method: 'DELETE' })).status).toBe(200);

    const written = await rowsByOpenpyxl(book, 'People');
    expect(names(written)).toEqual(['Ann', 'Cid, Jr.', null, 'item10', 'item2', 'Dee']);
    expect(written[1]?.[1]).toBe(99);
    expect(written.at(-1)?.[1]).toBe(7);
    expect(await rowsByOpenpyxl(book, 'Café ☕ Tab')).toEqual([
      ['Key', 'Value'],
      ['a', 1],
    ]);
    expect(await largePartHash(book)).toBe(blob); // copied as it was
    const read = await h.fetch(`${rows}?limit=10`);
    expect(((await read.json()) as { Name: string }[]).map((r) => r.Name).at(-1)).toBe('Dee');
  }, 60_000);

  it("keeps another program's save made between the read and the first write", async () => {
    h = await startHarness();
    const book = await writePeopleWorkbook(h.dir);
    const blob = await addLargePart(book, 2);
    const connection = await h.connect(book);
    const rows = rowsPath(connection, 'People');
    expect((await h.fetch(rows)).status).toBe(200);

    await saveOutside(book, 'Outside');
    const json = { 'content-type': 'application/json' };
    const patched = await h.fetch(`${rows}/1`, { method: 'PATCH', headers: json, body: '{"Age":42}' });
    expect(patched.status).toBe(200);

    const written = await rowsByOpenpyxl(book, 'People');
    expect(names(written)).toEqual(['Ann', 'bob', 'Cid, Jr.', null, 'item10', 'item2', 'Outside']);
    expect(written[1]?.[1]).toBe(42);
    expect(await largePartHash(book)).toBe(blob);
  }, 60_000);
});
