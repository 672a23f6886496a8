import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Mutation } from '../../../server/sources/source.ts';
import { TEMP_FILE_PATTERN } from '../../../server/sources/workbook/atomic-file.ts';
import { createDemoWorkbook } from '../../../server/sources/workbook/demo.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { OoxmlDocument } from '../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { writeOne, writeTogether } from '../../helpers/source-write.ts';
import {
  bumpMtime,
  coldRead,
  loadWorkbook,
  PLAIN,
  rejection,
  removeTempDirs,
  sha,
  tempDir,
  writeStyledWorkbook,
} from './helpers.ts';

afterAll(removeTempDirs);

async function styled() {
  const dir = await tempDir();
  const file = await writeStyledWorkbook(path.join(dir, 'book.xlsx'));
  return { dir, file, source: createWorkbookSource(file) };
}

/** The file as another program would save it: Summary!A1 changed. */
async function outsideSave(file: string, text: string): Promise<Uint8Array> {
  const wb = await loadWorkbook(file);
  wb.getWorksheet('Summary')!.getCell('A1').value = text;
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

describe('outside changes', () => {
  it('a write after another program saved the file keeps that change', async () => {
    const { file, source } = await styled();
    await source.read(); // the source now holds a parsed copy
    await fsp.writeFile(file, await outsideSave(file, 'Edited in Excel'));
    await bumpMtime(file);
    const result = await writeOne(source, '1', [{ op: 'append', values: { Order: 'O-6' } }], PLAIN);
    expect(result.snapshot.tabs[1]?.header[0]).toBe('Edited in Excel');
    const wb = await loadWorkbook(file);
    expect(wb.getWorksheet('Summary')!.getCell('A1').value).toBe('Edited in Excel');
    expect(wb.getWorksheet('Orders')!.getCell('A7').value).toBe('O-6');
  });

  it('a save that lands while a write is in flight makes the write start over from it', async () => {
    const { file, source } = await styled();
    const outside = await outsideSave(file, 'Saved meanwhile');
    let calls = 0;
    const result = await writeOne(source, '1', [{ op: 'update', row: 1, values: { Note: 'ours' } }], {
      ...PLAIN,
      precondition: (tab) => {
        calls++;
        if (calls === 1) {
          fs.writeFileSync(file, outside); // another program saves between our read and our replace
          const t = new Date(Date.now() + 10_000);
          fs.utimesSync(file, t, t);
        } else {
          expect(tab.typed[0]?.[5]).toBe('odd'); // re-validated against the new content
        }
      },
    });
    expect(calls).toBe(2);
    expect(result.updated).toBe(1);
    const wb = await loadWorkbook(file);
    expect(wb.getWorksheet('Summary')!.getCell('A1').value).toBe('Saved meanwhile');
    expect(wb.getWorksheet('Orders')!.getCell('F2').value).toBe('ours');
    expect(result.snapshot.version).toBe(await source.version());
  });
});

describe('locked files', () => {
  for (const lockName of ['.~lock.book.xlsx#', '~$book.xlsx']) {
    it(`refuses with 423 locked while ${lockName} exists, changing nothing`, async () => {
      const { dir, file, source } = await styled();
      const before = await sha(file);
      await fsp.writeFile(path.join(dir, lockName), 'owner');
      const error = await rejection(writeOne(source, '1', [{ op: 'append', values: { Order: 'x' } }], PLAIN));
      expect(error.code).toBe('locked');
      expect(error.status).toBe(423);
      expect(error.message).not.toContain(dir);
      expect(await sha(file)).toBe(before);
      await fsp.rm(path.join(dir, lockName));
      await writeOne(source, '1', [{ op: 'append', values: { Order: 'x' } }], PLAIN);
      expect((await source.read()).tabs[0]?.typed.at(-1)?.[0]).toBe('x');
    });
  }

  it('maps a sharing violation on replace (EBUSY) to locked and leaves no temp file', async () => {
    const { dir, file, source } = await styled();
    await source.read();
    const before = await sha(file);
    // A Windows sharing violation cannot happen on this machine: the rename is made to fail as Windows would.
    const spy = vi.spyOn(fs, 'renameSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('EBUSY: resource busy'), { code: 'EBUSY' });
    });
    try {
      const error = await rejection(writeOne(source, '1', [{ op: 'append', values: { Order: 'x' } }], PLAIN));
      expect(error.code).toBe('locked');
    } finally {
      spy.mockRestore();
    }
    expect(await sha(file)).toBe(before);
    expect(await fsp.readdir(dir)).toEqual(['book.xlsx']);
    // the in-memory copy was dropped: a later write starts from the file, not from the failed attempt
    const result = await writeOne(source, '1', [{ op: 'append', values: { Order: 'y' } }], PLAIN);
    expect(result.snapshot.tabs[0]?.typed.slice(-2).map((r) => r[0])).toEqual(['O-5', 'y']);
  });
});

describe('atomic replace', () => {
  it('leaves no temp files behind and keeps the file mode', async () => {
    const { dir, file, source } = await styled();
    await fsp.chmod(file, 0o640);
    for (let i = 0; i < 3; i++)
      await writeOne(source, '1', [{ op: 'append', values: { Order: `n${i}` } }], PLAIN);
    // The link to the version before the last write is removed behind its answer.
    await vi.waitFor(async () => expect(await fsp.readdir(dir)).toEqual(['book.xlsx']));
    expect((await fsp.readdir(dir)).some((n) => TEMP_FILE_PATTERN.test(n))).toBe(false);
    expect((await fsp.stat(file)).mode & 0o777).toBe(0o640);
  });
});

describe('concurrent writes', () => {
  it('50 appends handed over as one turn to a 300-row tab all land exactly once, fast', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'demo.xlsx');
    await createDemoWorkbook(file);
    const source = createWorkbookSource(file);

    let t = performance.now();
    await writeOne(source, '1', [{ op: 'append', values: { 'Order ID': 'SINGLE' } }], PLAIN);
    const single = performance.now() - t;

    t = performance.now();
    const ids = Array.from({ length: 50 }, (_, i) => `PAR-${i}`);
    const settled = await writeTogether(
      source,
      ids.map((id) => ({
        sourceSheetId: '1',
        mutations: [{ op: 'append', values: { 'Order ID': id, Quantity: 1 } }],
        options: PLAIN,
      })),
    );
    const results = settled.map((r) => (r.status === 'fulfilled' ? r.value : null));
    const parallel = performance.now() - t;
    console.info(
      `append on 300 rows: ${single.toFixed(0)} ms; 50 parallel appends: ${parallel.toFixed(0)} ms`,
    );
    expect(parallel).toBeLessThan(10_000);
    expect(results.every((r) => r?.appended === 1 && r.updated === 0 && r.deleted === 0)).toBe(true);

    const tab = (await coldRead(file))[0];
    const column = tab?.typed.map((r) => r[0]) ?? [];
    expect(column.length).toBe(351);
    expect(column.filter((v) => String(v).startsWith('PAR-')).sort()).toEqual([...ids].sort());
    // the batch's answers carry the final state, whose version is the file's
    const version = await source.version();
    expect(results.at(-1)?.snapshot.version).toBe(version);
  });

  it('a bad write among those of one turn fails alone', async () => {
    const { file, source } = await styled();
    const writes: Mutation[][] = [
      [{ op: 'append', values: { Order: 'a' } }],
      [{ op: 'append', values: { Nope: 'b' } }],
      [{ op: 'delete', row: 99 }],
      [{ op: 'append', values: { Order: 'c' } }],
    ];
    const settled = await writeTogether(
      source,
      writes.map((mutations) => ({ sourceSheetId: '1', mutations, options: PLAIN })),
    );
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(settled.map((s) => (s.status === 'rejected' ? s.reason.code : null))).toEqual([
      null,
      'unknown_field',
      'row_not_found',
      null,
    ]);
    expect((await coldRead(file))[0]?.typed.slice(-2).map((r) => r[0])).toEqual(['a', 'c']);
  });

  it('writes are applied in arrival order, each validated against the result of the previous ones', async () => {
    const { source } = await styled();
    const first = writeOne(source, '1', [{ op: 'delete', row: 5 }], PLAIN); // 5 rows -> 4
    const second = writeOne(source, '1', [{ op: 'delete', row: 5 }], PLAIN); // now out of range
    const third = writeOne(source, '1', [{ op: 'update', row: 4, values: { Order: 'last' } }], PLAIN);
    await first;
    expect((await rejection(second)).code).toBe('row_not_found');
    const result = await third;
    expect(result.snapshot.tabs[0]?.typed.map((r) => r[0])).toEqual(['O-1', 'O-2', 'O-3', 'last']);
  });

  it('a write that breaks half-way through is dropped with the in-memory copy; the others still land', async () => {
    const { file, source } = await styled();
    const original = OoxmlDocument.prototype.apply;
    const spy = vi.spyOn(OoxmlDocument.prototype, 'apply').mockImplementationOnce(function (
      this: OoxmlDocument,
      ...args
    ) {
      original.apply(this, args); // the change is made in memory...
      throw new Error('boom'); // ...and then something fails
    });
    try {
      const [broken, fine] = await writeTogether(source, [
        { sourceSheetId: '1', mutations: [{ op: 'append', values: { Order: 'half' } }], options: PLAIN },
        { sourceSheetId: '1', mutations: [{ op: 'append', values: { Order: 'whole' } }], options: PLAIN },
      ]);
      expect(broken?.status === 'rejected' && broken.reason.code).toBe('internal_error');
      expect(fine?.status).toBe('fulfilled');
    } finally {
      spy.mockRestore();
    }
    const orders = (await coldRead(file))[0]?.typed.map((r) => r[0]);
    expect(orders).toEqual(['O-1', 'O-2', 'O-3', 'O-4', 'O-5', 'whole']);
  });

  it("two sources on the same file, each with a turn of writes, never lose each other's", async () => {
    const { file } = await styled();
    const a = createWorkbookSource(file);
    const b = createWorkbookSource(path.join(path.dirname(file), '.', 'book.xlsx'));
    const turn = (odd: number) =>
      Array.from({ length: 5 }, (_, i) => ({
        sourceSheetId: '1',
        mutations: [{ op: 'append' as const, values: { Order: `two-${2 * i + odd}` } }],
        options: PLAIN,
      }));
    const settled = (await Promise.all([writeTogether(a, turn(1)), writeTogether(b, turn(0))])).flat();
    expect(settled.map((s) => s.status)).toEqual(Array(10).fill('fulfilled'));
    const orders = (await coldRead(file))[0]?.typed.map((r) => r[0]) ?? [];
    expect(orders.filter((o) => String(o).startsWith('two-')).length).toBe(10);
    await a.close();
    await b.close();
  });
});
